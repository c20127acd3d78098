import { accessEventDefinitions } from '../src/access/access-event-catalogue.js';
import { EventCatalogue } from '../src/eventstore/event-catalogue.js';
import { accountEventDefinitions } from '../src/ledger/account-event-catalogue.js';
import { accessProjection } from './access-projection.js';
import { priceEventDefinitions } from '../src/prices/price-event-catalogue.js';
import { budgetAlertsProjection } from './budget-alerts-projection.js';
import { videoEventDefinitions } from '../src/videos/video-event-catalogue.js';
import { ledgerProjection } from './ledger-projection.js';
import type { Projection } from './projection.js';
import { videoProjection } from './video-projection.js';

/**
 * What the projection CLI and the gateway's runners work with. Features add their event definitions
 * (`defineEvent`) to the catalogue and their read models (`defineProjection`, one file each in this
 * folder) to the list. Every event type the gateway writes must be in the catalogue: a runner stops at
 * an event type it does not know rather than skip it.
 */
export const eventCatalogue = new EventCatalogue([...accountEventDefinitions, ...accessEventDefinitions, ...videoEventDefinitions, ...priceEventDefinitions]);

export const projections: readonly Projection[] = [ledgerProjection, accessProjection, videoProjection, budgetAlertsProjection];
