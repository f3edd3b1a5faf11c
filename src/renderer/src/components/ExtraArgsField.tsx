import { useId, useRef, useState, type KeyboardEvent } from 'react';
import { suggestFlags } from '../../../shared/engines/flag-tables';
import type { EngineId } from '../../../shared/engines/types';
import { FieldFrame } from './FieldFrame';
import { t } from '../i18n';

export interface ExtraArgsFieldProps {
  label: string;
  labelNote?: string;
  engine: EngineId;
  /** The engine version whose own flags complete and check the words. */
  version: string;
  value: string;
  onValueChange: (value: string) => void;
  error?: string | undefined;
  hint?: string | undefined;
}

/** The word the caret is in: its start, its end and its text. */
function wordAt(text: string, caret: number): { start: number; end: number; word: string } {
  let start = caret;
  while (start > 0 && !/\s/.test(text[start - 1] as string)) start--;
  let end = caret;
  while (end < text.length && !/\s/.test(text[end] as string)) end++;
  return { start, end, word: text.slice(start, caret) };
}

/**
 * Extra engine arguments, completed from the flags of the engine version itself: typing `--max-n` offers
 * `--max-num-seqs`, … (Arrow keys move, Enter or Tab takes one, Escape closes). The check of what was typed is the
 * caller's (validateExtraArgs), shown as the field's error.
 */
export function ExtraArgsField({ label, labelNote, engine, version, value, onValueChange, error, hint }: ExtraArgsFieldProps) {
  const input = useRef<HTMLInputElement>(null);
  const listId = useId();
  const [caret, setCaret] = useState<number | null>(null);
  const [active, setActive] = useState(0);
  const [closed, setClosed] = useState(false);
  const current = caret === null ? null : wordAt(value, caret);
  const suggestions = current && !closed && version ? suggestFlags(engine, version, current.word) : [];
  const open = suggestions.length > 0;

  const take = (name: string) => {
    if (!current) return;
    const next = `${value.slice(0, current.start)}${name}${value.slice(current.end)}`;
    const at = current.start + name.length;
    onValueChange(next.slice(at).startsWith(' ') ? next : `${next.slice(0, at)} ${next.slice(at)}`);
    setClosed(true);
    requestAnimationFrame(() => {
      input.current?.focus();
      input.current?.setSelectionRange(at + 1, at + 1);
      setCaret(at + 1);
    });
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (!open) return;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      setActive((i) => (i + (event.key === 'ArrowDown' ? 1 : suggestions.length - 1)) % suggestions.length);
    } else if (event.key === 'Enter' || event.key === 'Tab') {
      event.preventDefault();
      take((suggestions[active] ?? suggestions[0])?.name as string);
    } else if (event.key === 'Escape') {
      setClosed(true);
    }
  };

  return (
    <FieldFrame label={label} labelNote={labelNote} hint={hint} error={error} className="extra-args-field">
      {(control) => (
        <>
          <input
            {...control}
            ref={input}
            className="input mono"
            value={value}
            spellCheck={false}
            autoComplete="off"
            role="combobox"
            aria-expanded={open}
            aria-controls={open ? listId : undefined}
            aria-autocomplete="list"
            aria-activedescendant={open ? `${listId}-${active}` : undefined}
            onChange={(event) => {
              onValueChange(event.target.value);
              setCaret(event.target.selectionStart);
              setActive(0);
              setClosed(false);
            }}
            onSelect={(event) => setCaret(event.currentTarget.selectionStart)}
            onBlur={() => setClosed(true)}
            onFocus={() => setClosed(false)}
            onKeyDown={onKeyDown}
          />
          {open && (
            <ul id={listId} role="listbox" className="flag-suggestions" aria-label={t('engines.extraArgs.suggestions', { version })}>
              {suggestions.map((s, i) => (
                <li
                  key={s.name}
                  id={`${listId}-${i}`}
                  role="option"
                  aria-selected={i === active}
                  className={i === active ? 'flag-suggestion active' : 'flag-suggestion'}
                  onMouseDown={(event) => {
                    event.preventDefault();
                    take(s.name);
                  }}
                >
                  <span className="mono">{s.name}</span>
                  <span className="flag-suggestion-arity">{s.choices ? s.choices.slice(0, 6).join(' | ') + (s.choices.length > 6 ? ' | …' : '') : t(`engines.extraArgs.arity.${s.arity}`)}</span>
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </FieldFrame>
  );
}
