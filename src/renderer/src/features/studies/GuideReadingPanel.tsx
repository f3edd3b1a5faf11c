import type { ProjectFile } from '../../../../shared/study/study';
import { Badge } from '../../components/Badge';
import { t } from '../../i18n';

/**
 * A study opened from a tuning guide: which guide, how many of its results are kept as published references, and
 * every line of it the study could not take or that the guide gets wrong (never dropped silently).
 */
export function GuideReadingPanel({ project }: { project: ProjectFile }) {
  const guide = project.state.guide;
  if (!guide) return null;
  const references = project.state.references ?? [];
  const wrong = guide.problems.filter((p) => p.kind === 'wrong').length;
  return (
    <details className="study-guide" open={guide.problems.length > 0} aria-label={t('studies.guide.panel')}>
      <summary>
        {t('studies.guide.summary', { file: guide.file, published: references.length, problems: guide.problems.length })}
        {wrong > 0 && (
          <>
            {' '}
            <Badge tone="warning">{t('studies.guide.wrongCount', { count: wrong })}</Badge>
          </>
        )}
      </summary>
      {guide.problems.length === 0 ? (
        <p className="muted">{t('studies.guide.none')}</p>
      ) : (
        <ul className="study-guide-problems" aria-label={t('studies.guide.problems')}>
          {guide.problems.map((p, i) => (
            <li key={`${p.line}:${i}`} className={`study-guide-problem is-${p.kind}`}>
              <Badge tone={p.kind === 'wrong' ? 'warning' : 'neutral'}>{t(p.kind === 'wrong' ? 'studies.guide.kind.wrong' : 'studies.guide.kind.unmapped')}</Badge>{' '}
              <span className="mono">{t('studies.guide.line', { file: guide.file, line: p.line })}</span> {p.message}
            </li>
          ))}
        </ul>
      )}
    </details>
  );
}
