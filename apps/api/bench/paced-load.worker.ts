/*
 * The thread `pacedLoadApart` starts: one paced pass with the requests of its plan, its result posted back.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { pacedLoad, planned, type PacedLoadOptions, type PacedRequestPlan } from './paced-load';

const options = workerData as Omit<PacedLoadOptions, 'next'> & { plan: PacedRequestPlan };
void pacedLoad({ ...options, next: planned(options.plan) }).then((result) => parentPort!.postMessage(result));
