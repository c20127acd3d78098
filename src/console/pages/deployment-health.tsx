import type { DeploymentRecord, ListRecord } from '../../admin-records.js';
import { get } from '../api.js';
import { formatTime } from '../request-format.js';
import { ErrorNotice, Loading, useLoad } from '../ui.js';

/**
 * Every deployment of the catalog with its health (`GET /admin/v1/deployments`): calls answered and
 * failed, retries and fallbacks sent to it, cooldowns, and whether it is skipped now. The figures are the
 * instance's that served the page, since it started: cooldowns are kept per instance.
 */
export function DeploymentHealthTable() {
  const deployments = useLoad(() => get<ListRecord<DeploymentRecord>>('/deployments'), []);
  return (
    <>
      <h2>Deployment health</h2>
      <p class="hint">
        Where each model is served, its share of the traffic, and how its calls went on this instance since it started. A deployment that fails repeatedly is
        skipped until its cooldown ends; a failed attempt is retried elsewhere and costs nothing.
      </p>
      <ErrorNotice error={deployments.error} action="load the deployments' health" />
      <Loading loaded={deployments} />
      {deployments.data ? (
        <table class="deployments" data-testid="deployments">
          <caption>{deployments.data.data.length} deployments</caption>
          <thead>
            <tr>
              <th scope="col">Deployment</th>
              <th scope="col">Provider</th>
              <th scope="col">Upstream</th>
              <th scope="col" class="number">Weight</th>
              <th scope="col">Priced as</th>
              <th scope="col" class="number">Answered</th>
              <th scope="col" class="number">Failed</th>
              <th scope="col" class="number">Retries</th>
              <th scope="col" class="number">Fallbacks</th>
              <th scope="col" class="number">Cooldowns</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {deployments.data.data.map((deployment) => (
              <tr key={deployment.id} data-deployment={deployment.id}>
                <th scope="row">{deployment.id}</th>
                <td>{deployment.provider}</td>
                <td>{deployment.upstream}</td>
                <td class="number">{deployment.weight}</td>
                <td>{deployment.priced_as}</td>
                <td class="number">{deployment.answered}</td>
                <td class="number">{deployment.failed}</td>
                <td class="number">{deployment.retries}</td>
                <td class="number">{deployment.fallbacks}</td>
                <td class="number">{deployment.cooldowns}</td>
                <td>{deployment.cooling_down ? `cooling down until ${formatTime(deployment.cooling_until)}` : 'healthy'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  );
}
