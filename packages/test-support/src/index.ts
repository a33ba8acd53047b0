export { forkScript, spawnApp } from './app-sources';
export { freePort } from './free-port';
export { PDF_DOCUMENT, SandboxPayerWebsite } from './sandbox-payer-website';
export { waitUntilAnswering, type AnsweringOptions, type WatchedProcess } from './wait-until-answering';
