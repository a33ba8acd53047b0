export * from './authorization.types';
export * from './authorization.events';
export * from './authorization-status.state-machine';
export * from './authorization.invariants';
export * from './authorization.aggregate';
export * from './decision-due-date';
export * from './failure-codes';
export * from './questionnaire-response.merge';
