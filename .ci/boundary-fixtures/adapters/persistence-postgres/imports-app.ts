// Deliberate violation: nothing imports an app.
export * from '../../../../apps/api/src/app';
