import { useId, useState, type FormEvent } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { PromptRequestView } from '../../../../shared/model/prompt';
import { Checkbox } from '../../components/Checkbox';
import { TextField } from '../../components/Field';
import { Icon } from '../../components/Icon';
import { Modal } from '../../components/Modal';
import { Spinner } from '../../components/Spinner';
import { useCountdown } from '../../components/use-countdown';
import { t } from '../../i18n';
import { selectCurrentPrompt, useAppStore } from '../../store';
import { formatCountdown, hostTarget } from '../hosts/format';
import './prompts.css';

/**
 * The question in the app's language when the core says what it is about (a key's passphrase, a password); a
 * keyboard-interactive question is the server's own words, shown as they came.
 */
export function promptWords(prompt: PromptRequestView): { title: string; message: string; fields: string[] } {
  const about = prompt.about;
  if (about?.kind === 'passphrase') {
    return {
      title: t('prompt.passphrase.title', { key: about.key }),
      message: about.attempt > 1 ? t('prompt.passphrase.retry', { attempt: about.attempt, tries: about.tries }) : t('prompt.passphrase.message', { key: about.key, login: about.login }),
      fields: [t('prompt.passphrase.field')],
    };
  }
  if (about?.kind === 'password') {
    const message = !about.wrongBefore
      ? t('prompt.password.message', { user: about.user, login: about.login })
      : about.attempt > 1
        ? t('prompt.password.retry', { attempt: about.attempt, tries: about.tries })
        : t('prompt.password.retrySaved');
    return { title: t('prompt.password.title', { address: about.address }), message, fields: [t('prompt.password.field')] };
  }
  return { title: prompt.title, message: prompt.message, fields: prompt.prompts.map((p) => p.text) };
}

/** Under this many seconds left the countdown turns to a warning. */
const HURRY_SECONDS = 30;

const SUBMIT_LABEL = {
  passphrase: 'prompt.submit.passphrase',
  password: 'prompt.submit.password',
  'keyboard-interactive': 'prompt.submit.keyboard-interactive',
} as const;

function PromptForm({ prompt, queued }: { prompt: PromptRequestView; queued: number }) {
  const host = useAppStore((s) => s.hosts.find((h) => h.id === prompt.hostId));
  const error = useAppStore((s) => s.promptErrors[prompt.requestId]);
  const answerPrompt = useAppStore((s) => s.answerPrompt);
  const cancelPrompt = useAppStore((s) => s.cancelPrompt);
  const [answers, setAnswers] = useState<string[]>(() => prompt.prompts.map(() => ''));
  const [remember, setRemember] = useState(false);
  const [busy, setBusy] = useState(false);
  const secondsLeft = useCountdown(prompt.expiresAt);
  const formId = useId();
  const words = promptWords(prompt);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    await answerPrompt(prompt.requestId, answers, prompt.allowRemember && remember);
    setBusy(false);
  }

  const cancel = () => {
    if (!busy) void cancelPrompt(prompt.requestId);
  };

  return (
    <Modal
      title={words.title}
      icon={<Icon name={prompt.kind === 'passphrase' ? 'key' : 'lock'} size={18} />}
      onClose={cancel}
      dismissOnBackdrop={false}
      footer={
        <>
          <button type="button" className="btn btn-secondary" onClick={cancel} disabled={busy}>
            {t('prompt.cancel')}
          </button>
          <button type="submit" form={formId} className="btn btn-primary" disabled={busy || secondsLeft === 0}>
            {busy && <Spinner />}
            {t(SUBMIT_LABEL[prompt.kind])}
          </button>
        </>
      }
    >
      <div className="prompt-meta">
        {host && (
          <span className="prompt-host">
            <Icon name="server" size={13} />
            <span>{host.label}</span>
            <span className="mono muted">{hostTarget(host)}</span>
          </span>
        )}
        {queued > 0 && <span className="prompt-queue">{queued === 1 ? t('prompt.queuedOne') : t('prompt.queued', { count: queued })}</span>}
      </div>
      {words.message && <p className="prompt-message">{words.message}</p>}
      <form id={formId} className="form form-compact" onSubmit={submit} noValidate>
        {prompt.prompts.map((field, index) => (
          <TextField
            key={index}
            className={field.echo ? undefined : 'secret-input'}
            label={(words.fields[index] ?? field.text).trim() || t('prompt.answer', { index: index + 1 })}
            type={field.echo ? 'text' : 'password'}
            value={answers[index] ?? ''}
            onValueChange={(value) => setAnswers((prev) => prev.map((a, i) => (i === index ? value : a)))}
            autoComplete={prompt.kind === 'keyboard-interactive' && field.echo ? 'one-time-code' : 'off'}
            autoCapitalize="off"
            spellCheck={false}
            disabled={busy}
          />
        ))}
        {prompt.allowRemember && (
          <Checkbox label={t('prompt.remember')} hint={t('prompt.rememberHint')} checked={remember} onChange={setRemember} disabled={busy} />
        )}
      </form>
      {secondsLeft !== null && (
        <p className={`prompt-expiry${secondsLeft <= HURRY_SECONDS ? ' is-urgent' : ''}`}>
          <Icon name="clock" size={13} />
          {secondsLeft === 0 ? t('prompt.expired') : t('prompt.expiresIn', { time: formatCountdown(secondsLeft) })}
        </p>
      )}
      {error && (
        <p className="form-error" role="alert">
          {t('prompt.failed', { message: error.message })}
        </p>
      )}
    </Modal>
  );
}

/**
 * The core's questions while it connects (key passphrase, password, keyboard-interactive/2FA), one at a time
 * in arrival order. Secret answers are masked; the dialog closes when the question is answered, cancelled, or
 * settled elsewhere (timed out, answered in another window).
 */
export function PromptDialog() {
  const { prompt, count } = useAppStore(useShallow(selectCurrentPrompt));
  if (!prompt) return null;
  // Keyed by request: a new question starts with empty inputs and its own focus.
  return <PromptForm key={prompt.requestId} prompt={prompt} queued={count - 1} />;
}
