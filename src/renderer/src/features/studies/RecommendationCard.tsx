import { useMemo, useState, type JSX } from 'react';
import { presetComparison, type PresetComparison } from '../../../../shared/study/rank';
import type { ProjectFile, StageDecision } from '../../../../shared/study/study';
import { copyText } from '../../components/clipboard';
import { Icon } from '../../components/Icon';
import { t } from '../../i18n';
import { engineName, stageLabel } from './study-format';
import { decisionText, keptCandidates, recommendationBasis } from './study-words';
import { useAppStore } from '../../store';

/** The configuration the study recommends: its exact launch command, how it was reached, and every stage's decision. */
export function RecommendationCard({ project, onCompare }: { project: ProjectFile; /** Shows a preset comparison in the Results tab. */ onCompare?: (kind: PresetComparison) => void }) {
  const [copied, setCopied] = useState(false);
  const { recommendation, decisions, status } = project.state;
  const locale = useAppStore((st) => st.locale);
  // eslint-disable-next-line react-hooks/exhaustive-deps -- worded in the UI's language, which `locale` follows
  const basis = useMemo(() => recommendationBasis(project), [project, locale]);
  // eslint-disable-next-line react-hooks/exhaustive-deps -- the labels follow the UI's language (the study's translations)
  const kept = useMemo(() => keptCandidates(project), [project, locale]);
  const canCompare = useMemo(
    () => ({ topTwo: presetComparison('topTwo', project.study, project.state).length === 2, baseline: presetComparison('baseline', project.study, project.state).length === 2 }),
    [project],
  );

  return (
    <section className="card study-recommendation" aria-label={t('studies.rec.label')}>
      <h3 className="card-title">
        <Icon name="check" size={16} />
        {t('studies.rec.title')}
      </h3>
      {!recommendation ? (
        <p className="empty-line">{status === 'done' ? t('studies.rec.noneDone') : t('studies.rec.none')}</p>
      ) : (
        <>
          <div className="study-command">
            <code className="study-command-text mono-block" data-testid="recommended-command">
              {recommendation.command}
            </code>
            <button
              type="button"
              className="btn btn-secondary btn-small"
              aria-label={t('studies.rec.copy')}
              onClick={() => void copyText(recommendation.command).then((ok) => setCopied(ok))}
            >
              <Icon name={copied ? 'check' : 'copy'} size={13} />
              {copied ? t('engines.copied') : t('engines.copy')}
            </button>
          </div>
          <dl className="study-facts study-facts-inline">
            <div>
              <dt>{t('studies.rec.engine')}</dt>
              <dd>
                {engineName(recommendation.engine)} {recommendation.version}
                {recommendation.mode === 'docker' ? ` (${t('studies.rec.docker')})` : ''}
              </dd>
            </div>
            <div>
              <dt>{t('studies.rec.model')}</dt>
              <dd className="mono">{recommendation.config.model}</dd>
            </div>
            {basis.length > 0 && (
              <div className="study-facts-wide">
                <dt>{t('studies.rec.basis')}</dt>
                <dd data-testid="recommendation-basis">
                  {basis.map((line) => (
                    <p key={line} className="study-basis-line">
                      {line}
                    </p>
                  ))}
                </dd>
              </div>
            )}
            <div className="study-facts-wide">
              <dt>{t('studies.rec.path')}</dt>
              <dd>
                <ol className="study-path" aria-label={t('studies.rec.path')}>
                  {kept.map(({ id, label }, i) => (
                    <li key={`${i}-${id}`} title={id}>
                      {label}
                    </li>
                  ))}
                </ol>
              </dd>
            </div>
          </dl>
          {onCompare && (canCompare.topTwo || canCompare.baseline) && (
            <div className="study-rec-actions">
              {canCompare.topTwo && (
                <button type="button" className="btn btn-secondary btn-small" onClick={() => onCompare('topTwo')}>
                  <Icon name="chart" size={13} />
                  {t('compare.study.topTwo')}
                </button>
              )}
              {canCompare.baseline && (
                <button type="button" className="btn btn-secondary btn-small" onClick={() => onCompare('baseline')}>
                  <Icon name="chart" size={13} />
                  {t('compare.study.withBaseline')}
                </button>
              )}
              <span className="field-hint">{t('studies.rec.compareHint')}</span>
            </div>
          )}
        </>
      )}
      {decisions.length > 0 && (
        <>
          <h4 className="section-title">{t('studies.rec.decisions')}</h4>
          <ul className="study-decisions" aria-label={t('studies.rec.decisions')}>
            {decisions.map((decision) => (
              <li key={decision.stageId} className={decision.winner ? 'is-kept' : undefined}>
                <span className="study-decision-stage">{stageLabel(project, decision.stageId)}</span>
                <DecisionText project={project} decision={decision} />
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

/** The stage's verdict in words (change, interval, outcome) before the decision, both in the app's language. */
export function DecisionText({ project, decision }: { project: ProjectFile; decision: StageDecision }): JSX.Element {
  const locale = useAppStore((s) => s.locale);
  // Redaction reads every trial's configuration: worded again only when the project, the decision or the language changes.
  // eslint-disable-next-line react-hooks/exhaustive-deps -- decisionText reads the UI's language, which `locale` follows
  const { words, verdict } = useMemo(() => decisionText(project, decision), [project, decision, locale]);
  return (
    <span>
      {verdict && <strong className="study-verdict">{verdict}</strong>}
      {verdict ? ` — ${words}` : words}
    </span>
  );
}
