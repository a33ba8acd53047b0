export * from './manual-handoff-state.state-machine';
export * from './manual-handoff.aggregate';
