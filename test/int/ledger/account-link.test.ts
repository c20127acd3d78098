import { expect } from 'chai';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import type { AccountOutcome } from '../../../src/ledger/accounts.js';
import { AccountLinkClient } from '../../../src/ledger/owners/account-link-client.js';
import { AccountLinkServer } from '../../../src/ledger/owners/account-link-server.js';
import type { ForwardedCommand } from '../../../src/ledger/owners/account-wire.js';

const SECRET = 'account-link-test-secret';

const reserve = (reservationId: string): ForwardedCommand => ({
  type: 'ReserveFunds',
  reservationId,
  endpoint: 'chat',
  owner: { keyId: 'key_link', employeeId: null, teamId: null, spaceId: null },
  model: 'openai/gpt-4o-mini',
  category: 'text',
  amount: 61_650n,
  price: { version: 1, serviceTier: null }, deadline: new Date(Date.now() + 600_000),
  limits: {},
  accessRevisions: {},
});

/**
 * The account link over real TCP: the owner runs forwarded commands concurrently and answers each when it
 * is decided, so answers come back in any order; the caller must match them by the command's id.
 */
describe('the account link between instances (real TCP)', function () {
  this.timeout(20_000);
  let server: AccountLinkServer | undefined;
  let client: AccountLinkClient | undefined;

  afterEach(async () => {
    client?.close();
    await server?.close();
  });

  it('gives each forwarded command its own outcome when the owner answers out of order (fails if answers are matched by the order sent)', async () => {
    // The owner decides org_refused's reserve last: it is refused there, while org_granted's is granted first.
    let releaseRefused!: () => void;
    const refusedHeld = new Promise<void>((resolve) => (releaseRefused = resolve));
    const handled: string[] = [];
    server = await AccountLinkServer.listen({
      host: '127.0.0.1',
      port: 0,
      secret: SECRET,
      handler: async (orgId, command): Promise<AccountOutcome> => {
        if (orgId === 'org_refused') {
          await refusedHeld;
          handled.push(orgId);
          return { decision: { rejection: new GatewayError('insufficient_funds', 'organization balance insufficient for this request') }, balance: 10_000n, reserved: 0n };
        }
        handled.push(orgId);
        if (command.type !== 'ReserveFunds') throw new Error(`unexpected ${command.type}`);
        const data = { reservationId: command.reservationId, endpoint: command.endpoint, ...command.owner, model: command.model, category: command.category, amount: String(command.amount), deadline: command.deadline.toISOString(), priceVersion: command.price.version, serviceTier: command.price.serviceTier, heldBy: command.heldBy ?? null };
        return { decision: { events: [{ type: 'FundsReserved', data }] }, balance: 1_000_000n, reserved: 61_650n };
      },
    });
    client = new AccountLinkClient(`127.0.0.1:${server.port}`, SECRET);

    const refused = client.call('org_refused', reserve('gen-refused'), 'gen-refused'); // sent first
    const grantedCall = client.call('org_granted', reserve('gen-granted'), 'gen-granted'); // answered first
    await Promise.race([refused, grantedCall]); // the first answer has arrived
    releaseRefused();
    const [refusedOutcome, granted] = await Promise.all([refused, grantedCall]);
    expect(handled, 'the owner answered the second command first').to.deep.equal(['org_granted', 'org_refused']);

    if (granted === 'not_owner' || refusedOutcome === 'not_owner') expect.fail('the owner holds both accounts');
    // the granted reserve is the caller's own, with its own reservation: the request is served and later closed
    expect('events' in granted.decision && granted.decision.events.map((event) => (event.data as { reservationId: string }).reservationId)).to.deep.equal(['gen-granted']);
    expect([granted.balance, granted.reserved]).to.deep.equal([1_000_000n, 61_650n]);
    // the refused one is refused: the request gets the 402, never served on money it does not have
    expect('rejection' in refusedOutcome.decision && refusedOutcome.decision.rejection.code).to.equal('insufficient_funds');
    expect([refusedOutcome.balance, refusedOutcome.reserved]).to.deep.equal([10_000n, 0n]);
  });
});
