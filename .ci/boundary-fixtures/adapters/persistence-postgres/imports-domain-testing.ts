// Deliberate violation: production code imports the domain's test doubles.
export { FixedClock } from '@prior-auth/domain/testing';
