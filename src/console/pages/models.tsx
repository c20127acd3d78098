import type { ListRecord, ModelPricingRecord, ModelRecord } from '../../admin-records.js';
import { get } from '../api.js';
import { formatUsd } from '../money.js';
import { requestsHref } from '../routes.js';
import { ErrorNotice, Loading, useLoad } from '../ui.js';

/** Prices per item (an image, a minute of audio, a second of video), as the catalog names them. */
const PER_ITEM: ReadonlyArray<readonly [keyof ModelPricingRecord, string]> = [
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
  return (
    <>
      <h1 tabIndex={-1}>Models</h1>
      <p class="hint">
        The catalog the gateway serves. Token prices are per million tokens. The output ceiling is what a request that sets no output cap reserves for
        its answer.
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
            </tr>
          </thead>
          <tbody>
            {models.data.data.map((model) => (
              <tr key={model.id} data-model={model.id}>
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
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  );
}

function perItem(pricing: ModelPricingRecord): string {
  const prices = PER_ITEM.flatMap(([field, unit]) => (pricing[field] === undefined ? [] : [`${formatUsd(pricing[field]!)} / ${unit}`]));
  return prices.length > 0 ? prices.join(', ') : '—';
}
