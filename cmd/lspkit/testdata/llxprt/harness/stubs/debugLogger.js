// Stands in for LLxprt Code's packages/core/src/utils/debugLogger.ts,
// which lspIntegration.ts logs through: to stderr, where the test shows it.
export const debugLogger = {
  error: (...args) => console.error('[debugLogger]', ...args),
  warn: (...args) => console.error('[debugLogger]', ...args),
  log() {},
  debug() {},
};
