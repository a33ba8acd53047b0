// Deliberate violation: an adapter must not import another adapter.
export * from '@prior-auth/grants';
