/**
 * @license
 * Copyright 2025 Vybestack LLC
 * SPDX-License-Identifier: Apache-2.0
 */

export type {
  LspServerId,
  LspServerConfig,
  LspRequestEnvelope,
  LspResponseEnvelope,
  LspConfig,
  Diagnostic,
  ServerStatus,
} from './types.js';
export {
  LspServiceClient,
  normalizeServerStatus,
} from './lsp-service-client.js';
