/**
 * Paths on a box as its user writes them. Servelab keeps everything on a box below the login's home, in
 * `~/.servelab` (engines, servers, benchmark runs, datasets, files); a command or a path recorded on a box names it
 * absolutely (`/home/ubuntu/.servelab/datasets/…`, or for the demo lab a folder of this machine such as
 * `/home/me/.local/share/servelab/demo-lab/home/.servelab/…`). Someone reading a report runs it on their own box,
 * whose home is not that one: there the path is `~/.servelab/…`.
 */

/** The folder below the home of every box. */
export const BOX_TREE = '.servelab';

const SAFE_WORD = /^[A-Za-z0-9._/@%+=:,-]*$/;
// A word quoted as the one quoting function quotes it ('…'), whose path leads into a home's .servelab folder.
const QUOTED = new RegExp(`'/(?:[^']*/)?${BOX_TREE.replace('.', '\\.')}/([^']*)'`, 'g');
// An unquoted path into a home's .servelab folder: at the start, after a space, an `=` or a double quote.
const BARE = new RegExp(`(^|[\\s="])/(?:[^\\s'"]*?/)?${BOX_TREE.replace('.', '\\.')}/`, 'g');

/**
 * `text` with every absolute path into a home's `.servelab` folder written from `~`, so that it still works in a
 * shell: `'/tmp/a b/.servelab/x y.json'` becomes `~/'.servelab/x y.json'`, a path that needs no quotes `~/.servelab/…`.
 */
export function homeRelativeBoxPaths(text: string): string {
  return text
    .replace(QUOTED, (_, rest: string) => (SAFE_WORD.test(rest) ? `~/${BOX_TREE}/${rest}` : `~/'${BOX_TREE}/${rest}'`))
    .replace(BARE, (_, before: string) => `${before}~/${BOX_TREE}/`);
}
