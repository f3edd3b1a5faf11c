import type { AppSlice } from './app-slice';
import type { BenchSlice } from './bench-slice';
import type { EnginesSlice } from './engines-slice';
import type { HostsSlice } from './hosts-slice';
import type { PromptsSlice } from './prompts-slice';
import type { ResultsSlice } from './results-slice';
import type { StudiesSlice } from './studies-slice';
import type { UiSlice } from './ui-slice';
import type { WizardSlice } from './wizard-slice';

/**
 * The whole store: one slice per feature, each declared in its own file beside its creator. Slices take AppState
 * (zustand's slices pattern), so this file composes and declares nothing else.
 */
export type AppState = HostsSlice & PromptsSlice & AppSlice & UiSlice & EnginesSlice & ResultsSlice & BenchSlice & StudiesSlice & WizardSlice;
