/**
 * The Node.js options an API process is started with (`node <flags> apps/api/dist/main.js`): the launcher and the
 * benchmark pass these, and the Dockerfile and the README write them out (a test keeps them in line).
 *
 * `--max-semi-space-size=32` doubles V8's young generation from its 16 MB default. Twenty creates in flight keep
 * their request objects alive across the default's frequent scavenges, which then copy them; with the larger one
 * most die first. A create costs about a sixth less CPU for about 40 MB more resident memory
 * (docs/performance.md, fourteenth round; decision 0056). It can only be set when the process starts.
 *
 * `--no-flush-bytecode` keeps the compiled code of functions that have not run for a while (V8 drops it after a
 * few full collections). Without it, a kind of request that came back after a minute of others often fell far
 * behind in its first seconds (decision 0066).
 */
export const API_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=32', '--no-flush-bytecode'];
