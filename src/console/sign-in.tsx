import { useState } from 'preact/hooks';
import { signIn } from './api.js';
import { ErrorNotice, useAction } from './ui.js';

/** The admin token goes to the gateway once, in a POST body; the browser keeps only the session cookie. */
export function SignIn({ onSignedIn, reason }: { onSignedIn: () => void; reason?: string }) {
  const [token, setToken] = useState('');
  const action = useAction();
  return (
    <main class="sign-in">
      <h1>Gateway console</h1>
      {reason ? <p role="status">{reason}</p> : null}
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          if (await action.run(() => signIn(token))) {
            setToken('');
            onSignedIn();
          }
        }}
      >
        <label for="admin-token">Admin token</label>
        <input id="admin-token" name="admin-token" type="password" autocomplete="current-password" required value={token} onInput={(event) => setToken(event.currentTarget.value)} />
        <p class="hint">The gateway's ADMIN_TOKEN. It is sent once; the session lasts 8 hours.</p>
        <button type="submit" class="primary" disabled={action.busy}>
          Sign in
        </button>
        <ErrorNotice error={action.error} action="sign in" />
      </form>
    </main>
  );
}
