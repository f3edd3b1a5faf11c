import type { PromptRequest } from '../../src/core/ssh/prompt-broker';

/** A passphrase question as the auth plan asks it, for prompt tests; `extra` changes any field. */
export const passphraseRequest = (extra: Partial<PromptRequest> = {}): PromptRequest => ({
  hostId: 'h1',
  kind: 'passphrase',
  title: 'Passphrase for ~/.ssh/id_ed25519',
  message: 'Enter it',
  prompts: [{ text: 'Passphrase:', echo: false }],
  ...extra,
});
