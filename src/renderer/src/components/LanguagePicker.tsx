import { useId, type Ref } from 'react';
import { AVAILABLE_LOCALES, languageName, t } from '../i18n';

/** A compact language menu; each language is listed by its own name, so anyone can find theirs. */
export function LanguagePicker({ locale, onChange, selectRef }: { locale: string; onChange(locale: string): void; selectRef?: Ref<HTMLSelectElement> }) {
  const id = useId();
  return (
    <div className="language-picker">
      <label className="visually-hidden" htmlFor={id}>
        {t('language.label')}
      </label>
      <select ref={selectRef} id={id} className="input language-select" value={locale} title={t('language.label')} onChange={(event) => onChange(event.target.value)}>
        {AVAILABLE_LOCALES.map((code) => (
          <option key={code} value={code} lang={code}>
            {languageName(code)}
          </option>
        ))}
      </select>
    </div>
  );
}
