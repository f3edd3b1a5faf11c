// Questions the core asks the user (passwords, passphrases, keyboard-interactive prompts).
const prompts = {
  'prompt.cancel': 'Cancel',
  'prompt.submit.passphrase': 'Unlock key',
  'prompt.submit.password': 'Log in',
  'prompt.submit.keyboard-interactive': 'Continue',
  'prompt.answer': 'Answer {index}',
  'prompt.remember': 'Remember in the OS keychain',
  'prompt.rememberHint': 'Servelab then uses it without asking, also after a restart.',
  'prompt.expiresIn': 'Servelab waits {time} more for an answer',
  'prompt.expired': 'This question timed out.',
  'prompt.queuedOne': '1 more question waiting',
  'prompt.queued': '{count} more questions waiting',
  'prompt.failed': 'The answer was not taken: {message}',
  'prompt.passphrase.title': 'Passphrase for {key}',
  'prompt.passphrase.message': 'Enter the passphrase of key {key} to log in to {login}.',
  'prompt.passphrase.retry': 'The passphrase was wrong; try again ({attempt} of {tries}).',
  'prompt.passphrase.field': 'Passphrase:',
  'prompt.password.title': 'Password for {address}',
  'prompt.password.message': 'Enter the password of {user} on {login}.',
  'prompt.password.retry': 'The password was wrong; try again ({attempt} of {tries}).',
  'prompt.password.retrySaved': 'The password was wrong; try again.',
  'prompt.password.field': 'Password:',
} as const;

export default prompts;
