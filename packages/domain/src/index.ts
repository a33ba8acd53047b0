export * from './shared/domain-error';
export * from './shared/scope';
export * from './requirements/questionnaire.types';
export * from './tenancy';
