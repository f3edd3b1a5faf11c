/**
 * Every user-visible string of the renderer, in English, one file per feature. These files are the source of truth
 * for the keys: another language is one more folder beside this one (for example `tr/`) with the same files and an
 * `index.ts` that default-exports a `Messages` object. Placeholders are written `{name}` and are checked against
 * the call site's params by the type of `t`.
 */
import app from './app';
import welcome from './welcome';
import hosts from './hosts';
import prompts from './prompts';
import engines from './engines';
import logs from './logs';
import results from './results';
import bench from './bench';
import compare from './compare';
import studies from './studies';
import wizard from './wizard';

const en = { ...app, ...welcome, ...hosts, ...prompts, ...engines, ...logs, ...results, ...bench, ...compare, ...studies, ...wizard };

export default en;
