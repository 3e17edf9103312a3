/**
 * Every workflow the worker runs. Deterministic code only: no I/O, no clocks, no
 * randomness outside the Temporal APIs.
 */
export * from './ping';
export * from './housekeeping';
export * from './payment';
export * from './webhook-delivery';
export * from './enrollment';
export * from './unreferenced-refund';
export * from './onboarding';
export * from './split-transfer';
export * from './subscription';
export * from './banking-transfer';
export * from './report';
export * from './dry-run';
export * from './campaign';
export * from './campaign-trigger';
export * from './probe';
