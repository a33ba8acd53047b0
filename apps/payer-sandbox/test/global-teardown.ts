export default async function globalTeardown(): Promise<void> {
  const state = (globalThis as Record<string, unknown>).__payerSandboxTest as
    { stop: () => Promise<void> } | undefined;
  await state?.stop();
}
