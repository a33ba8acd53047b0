// PayerPortal adapters, starting with the deterministic sandbox payer, land here (worker issue).
export {};
