import { useEffect, useId, useState } from 'react';
import type { REPORT_FORMATS } from '../../../../shared/contract/study-contract';
import { REPORT_LANGS, reportLangOf, type ReportLang } from '../../../../shared/study/report/text';
import { useApi } from '../../api/context';
import { copyText } from '../../components/clipboard';
import { Icon } from '../../components/Icon';
import { Spinner } from '../../components/Spinner';
import { languageName, t } from '../../i18n';
import { toErrorInfo, useAppStore } from '../../store';
import { ReportDocument } from './ReportDocument';
import { isNotSupported } from './study-errors';
import { reportFileName } from './study-format';

type ReportFormat = (typeof REPORT_FORMATS)[number];

const MIME: Record<ReportFormat, string> = { md: 'text/markdown', html: 'text/html', csv: 'text/csv' };
const EXPORT_ORDER: ReportFormat[] = ['csv', 'md', 'html'];

/** Saves the text as a file through the browser's download. */
function download(text: string, name: string, format: ReportFormat): void {
  const url = URL.createObjectURL(new Blob([text], { type: `${MIME[format]};charset=utf-8` }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.rel = 'noopener';
  document.body.append(link);
  link.click();
  link.remove();
  // The download has its own copy once click() returned; the URL is only needed until then.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/**
 * The report as it reads (its Markdown drawn as a document), its Markdown source on demand, and exports: the desktop app asks where to save and lets the core write the
 * file; a browser (where there is no native dialog) downloads the text instead. The report is in the UI's language
 * until another is chosen here (a report may be for readers of another language); the CSV is the same in any.
 */
export function ReportPanel({ path, revision }: { path: string; revision: string }) {
  const api = useApi();
  const uiLocale = useAppStore((s) => s.locale);
  const [chosenLang, setChosenLang] = useState<ReportLang | null>(null);
  const lang = chosenLang ?? reportLangOf(uiLocale);
  const langId = useId();
  // The preview with the language it is in, so assistive technology reads it in that language.
  const [preview, setPreview] = useState<{ markdown: string; lang: ReportLang } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<ReportFormat | null>(null);
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | null>(null);
  const [showSource, setShowSource] = useState(false);
  const [copied, setCopied] = useState(false);
  const sourceId = useId();

  useEffect(() => {
    let current = true;
    api.call('studies:report', { path, format: 'md', lang }).then(
      ({ text }) => {
        if (!current) return;
        setPreview({ markdown: text, lang });
        setError(null);
      },
      (e: unknown) => {
        if (current) setError(toErrorInfo(e).message);
      },
    );
    return () => {
      current = false;
    };
  }, [api, path, revision, lang]);

  async function exportAs(format: ReportFormat) {
    setBusy(format);
    setOutcome(null);
    const name = reportFileName(path, format);
    try {
      // The dialog's handle, not its path, is what studies:export accepts as permission to write outside the project.
      let chosen: string | null | undefined;
      try {
        chosen = (await api.call('dialogs:saveFile', { title: t('studies.report.saveTitle'), defaultName: name, extensions: [format] })).saveHandle;
      } catch (e) {
        if (!isNotSupported(e)) throw e;
        chosen = undefined;
      }
      if (chosen === null) return;
      if (chosen === undefined) {
        const { text } = await api.call('studies:report', { path, format, lang });
        download(text, name, format);
        setOutcome({ ok: true, text: t('studies.report.downloaded', { name }) });
      } else {
        const written = await api.call('studies:export', { path, format, lang, out: { saveHandle: chosen } });
        setOutcome({ ok: true, text: t('studies.report.saved', { path: written.path }) });
      }
    } catch (e) {
      setOutcome({ ok: false, text: t('studies.report.exportFailed', { reason: toErrorInfo(e).message }) });
    } finally {
      setBusy(null);
    }
  }

  return (
    <div className="study-report">
      <div className="study-report-actions" role="group" aria-label={t('studies.report.exportLabel')}>
        <label htmlFor={langId}>
          {t('studies.report.language')}
        </label>
        <select id={langId} className="input" value={lang} disabled={busy !== null} onChange={(event) => setChosenLang(event.target.value as ReportLang)}>
          {REPORT_LANGS.map((code) => (
            <option key={code} value={code} lang={code}>
              {languageName(code)}
            </option>
          ))}
        </select>
        {EXPORT_ORDER.map((format) => (
          <button key={format} type="button" className="btn btn-secondary" disabled={busy !== null} onClick={() => void exportAs(format)}>
            {busy === format ? <Spinner /> : <Icon name="download" size={14} />}
            {t(`studies.report.export.${format}`)}
          </button>
        ))}
        <p className={outcome?.ok === false ? 'form-error' : 'form-success'} role="status">
          {outcome?.text ?? ''}
        </p>
      </div>
      {error ? (
        <p className="form-error" role="alert">
          {t('studies.report.failed', { reason: error })}
        </p>
      ) : preview === null ? (
        <p className="empty-line">
          <Spinner /> {t('studies.report.loading')}
        </p>
      ) : (
        <>
          <div className="study-report-source-actions">
            <button type="button" className="btn btn-ghost btn-small" aria-expanded={showSource} aria-controls={sourceId} onClick={() => setShowSource((shown) => !shown)}>
              <Icon name="chevron" size={13} className={showSource ? 'study-report-source-open' : undefined} />
              {showSource ? t('studies.report.hideSource') : t('studies.report.showSource')}
            </button>
            <button type="button" className="btn btn-ghost btn-small" onClick={() => void copyText(preview.markdown).then((ok) => setCopied(ok))}>
              <Icon name={copied ? 'check' : 'copy'} size={13} />
              {copied ? t('engines.copied') : t('studies.report.copySource')}
            </button>
          </div>
          {showSource && (
            <pre id={sourceId} className="study-report-preview mono-block" tabIndex={0} lang={preview.lang} aria-label={t('studies.report.sourceLabel')}>
              {preview.markdown}
            </pre>
          )}
          <ReportDocument markdown={preview.markdown} lang={preview.lang} label={t('studies.report.documentLabel')} />
        </>
      )}
    </div>
  );
}
