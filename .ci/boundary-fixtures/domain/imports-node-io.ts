// Deliberate violation: the boundary check must reject Node I/O in the domain.
import { readFileSync } from 'node:fs';
export const read = readFileSync;
