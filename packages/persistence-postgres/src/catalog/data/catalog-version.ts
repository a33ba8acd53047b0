/**
 * Version of the payer/route catalog shipped in this code. Bump it whenever payers, routes, questionnaire
 * templates or document requirements change: seeding stamps every row with it and removes rows of other
 * versions, and questionnaire templates carry it as their `version`.
 */
export const CATALOG_VERSION = '2026-11-01';
