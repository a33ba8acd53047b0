// Signed, expiring access-grant capabilities land here (manual handoffs issue).
export {};
