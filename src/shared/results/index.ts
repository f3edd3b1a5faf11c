export * from './bench-result';
export * from './metrics';
export { parseBenchText, parsePrintedNumber, type BenchClient, type TextBlock, type TextParse, type TextProblem } from './parse-bench-text';
export { parseBenchJsonText, parseLenientJson, runFromJson, jsonClient, type JsonParse, type JsonRun } from './parse-bench-json';
export { detectContentKind, resultFormat, type ContentKind } from './detect-format';
export { importResults, formatProblem, NO_RESULT_MESSAGE, type ImportOutcome, type ImportProblem } from './import-results';
