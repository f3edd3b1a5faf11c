export { buildReportModel, type ReportModel, type ScenarioRow, type StageSection, type TrialRow, type SummaryRow, type ReportNote } from './model';
export { renderMarkdown } from './markdown';
export { renderHtml } from './html';
export { renderCsv } from './csv';
export { REPORT_LANGS, reportLangOf, reportText, type ReportLang, type ReportText } from './text';
