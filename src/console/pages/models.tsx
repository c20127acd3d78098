import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import type { ListRecord, ModelPricingRecord, ModelRatesRecord, ModelRecord, PriceVersionRecord } from '../../admin-records.js';
import { get } from '../api.js';
import { formatUsd } from '../money.js';
import { formatTime } from '../request-format.js';
import { requestsHref } from '../routes.js';
import { ErrorNotice, Loading, useLoad } from '../ui.js';
import { DeploymentHealthTable } from './deployment-health.js';

/** Every rate, as the price history writes it: the catalog's names, the per-million ones marked so. */
const RATES: ReadonlyArray<readonly [keyof ModelRatesRecord | 'pii_masking_fee', string]> = [
  ['input_per_mtok', 'input'],
  ['cached_input_per_mtok', 'cached input'],
  ['cache_write_per_mtok', 'cache write (5 min)'],
  ['cache_write_1h_per_mtok', 'cache write (1 h)'],
  ['output_per_mtok', 'output'],
  ['audio_input_per_mtok', 'audio input'],
  ['audio_output_per_mtok', 'audio output'],
  ['per_image', 'per image'],
  ['per_audio_minute', 'per audio minute'],
  ['per_video_second', 'per video second'],
  ['pii_masking_fee', 'masking fee'],
];

/** Prices per item (an image, a minute of audio, a second of video), as the catalog names them. */
const PER_ITEM: ReadonlyArray<readonly [keyof ModelRatesRecord, string]> = [
  ['per_image', 'image'],
  ['per_audio_minute', 'audio minute'],
  ['per_video_second', 'video second'],
];

const perMillion = (price: string | undefined) => (price === undefined ? '—' : formatUsd(price));

/**
 * The catalog as the gateway serves it (`GET /admin/v1/models`, the records of `GET /v1/models`): each
 * model's category, provider, prices per unit, output ceiling and capabilities. A model links to its
 * requests in the log.
 */
export function ModelsPage() {
  const models = useLoad(() => get<ListRecord<ModelRecord>>('/models'), []);
  const [history, setHistory] = useState<string | undefined>();
  return (
    <>
      <h1 tabIndex={-1}>Models</h1>
      <p class="hint">
        The catalog the gateway serves, each model at its price in force. Token prices are per million tokens. The output ceiling is what a request that
        sets no output cap reserves for its answer. A price version is recorded when the catalog's prices change or a price is set through the admin
        API; every request is charged at the version in force when it arrived.
      </p>
      <ErrorNotice error={models.error} action="load the catalog's models" />
      <Loading loaded={models} />
      {models.data ? (
        <table class="models" data-testid="models">
          <caption>{models.data.data.length} models</caption>
          <thead>
            <tr>
              <th scope="col">Model</th>
              <th scope="col">Category</th>
              <th scope="col">Provider</th>
              <th scope="col" class="number">Input / 1M</th>
              <th scope="col" class="number">Cached input / 1M</th>
              <th scope="col" class="number">Cache write / 1M</th>
              <th scope="col" class="number">Output / 1M</th>
              <th scope="col" class="number">Per item</th>
              <th scope="col" class="number">Output ceiling (tokens)</th>
              <th scope="col" class="number">Context (tokens)</th>
              <th scope="col">Capabilities</th>
              <th scope="col">Price version</th>
            </tr>
          </thead>
          <tbody>
            {models.data.data.map((model) => (
              <Fragment key={model.id}>
              <tr data-model={model.id}>
                <th scope="row">
                  <a href={requestsHref(undefined, { model: model.id })} title={`Requests of ${model.id}`}>
                    {model.id}
                  </a>
                </th>
                <td>{model.category}</td>
                <td>{model.owned_by}</td>
                <td class="number">{perMillion(model.pricing.input_per_mtok)}</td>
                <td class="number">{perMillion(model.pricing.cached_input_per_mtok)}</td>
                <td class="number">{perMillion(model.pricing.cache_write_per_mtok)}</td>
                <td class="number">{perMillion(model.pricing.output_per_mtok)}</td>
                <td class="number">{perItem(model.pricing)}</td>
                <td class="number">{model.max_output_tokens === null ? '—' : model.max_output_tokens.toLocaleString('en-US')}</td>
                <td class="number">{model.context_length === null ? '—' : model.context_length.toLocaleString('en-US')}</td>
                <td>{model.capabilities.length > 0 ? model.capabilities.join(', ') : '—'}</td>
                <td>
                  {model.pricing_version === null ? '—' : `v${model.pricing_version} since ${formatTime(model.pricing_effective_at)}`}{' '}
                  <button type="button" class="link" aria-expanded={history === model.id} onClick={() => setHistory(history === model.id ? undefined : model.id)}>
                    history
                  </button>
                </td>
              </tr>
              {history === model.id ? (
                <tr class="price-history">
                  <td colSpan={12}>
                    <PriceHistory model={model.id} />
                  </td>
                </tr>
              ) : null}
              </Fragment>
            ))}
          </tbody>
        </table>
      ) : null}
      <DeploymentHealthTable />
    </>
  );
}

function perItem(pricing: ModelPricingRecord): string {
  const prices = PER_ITEM.flatMap(([field, unit]) => (pricing[field] === undefined ? [] : [`${formatUsd(pricing[field]!)} / ${unit}`]));
  return prices.length > 0 ? prices.join(', ') : '—';
}

/** Every price version of a model (`GET /admin/v1/models/{id}/prices`), newest first. */
function PriceHistory({ model }: { model: string }) {
  const versions = useLoad(() => get<ListRecord<PriceVersionRecord>>(`/models/${encodeURIComponent(model)}/prices`), [model]);
  return (
    <>
      <ErrorNotice error={versions.error} action={`load the price history of ${model}`} />
      <Loading loaded={versions} />
      {versions.data ? (
        <table class="price-versions" data-testid="price-history">
          <caption>Price history of {model}</caption>
          <thead>
            <tr>
              <th scope="col">Version</th>
              <th scope="col">In force from (UTC)</th>
              <th scope="col">Status</th>
              <th scope="col">Set by</th>
              <th scope="col">Rates</th>
            </tr>
          </thead>
          <tbody>
            {[...versions.data.data].reverse().map((version) => (
              <tr key={version.version} data-version={version.version}>
                <th scope="row">v{version.version}</th>
                <td>{formatTime(version.effective_at)}</td>
                <td>{version.status.replace('_', ' ')}</td>
                <td>{version.source === 'catalog' ? 'catalog file' : 'admin API'}</td>
                <td>{rates(version.pricing)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  );
}

function rates(pricing: ModelPricingRecord): string {
  const standard = RATES.flatMap(([field, label]) => (pricing[field] === undefined ? [] : [`${label} ${formatUsd(pricing[field]!)}`]));
  const tiers = Object.entries(pricing.service_tiers ?? {}).map(
    ([tier, tierRates]) => `${tier}: ${RATES.flatMap(([field, label]) => (field !== 'pii_masking_fee' && tierRates[field] !== undefined ? [`${label} ${formatUsd(tierRates[field]!)}`] : [])).join(', ')}`,
  );
  return [standard.join(', '), ...tiers].join('; ');
}
