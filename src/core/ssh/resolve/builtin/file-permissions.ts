// Which config files ssh refuses to read: not owned by root or the user, or writable by others. Debian's
// user-group-modes patch (openssh 1:9.2p1-2) also accepts a group-writable file whose group has the owner as its
// only member (its private group), as `secure_permissions()` in that build's misc.c.
import { readFileSync } from 'node:fs';
import type { Stats } from 'node:fs';

export interface AccountFiles {
  passwdFile: string;
  groupFile: string;
}

function lines(path: string): string[][] {
  try {
    return readFileSync(path, 'utf8')
      .split('\n')
      .filter((l) => l !== '' && !l.startsWith('#'))
      .map((l) => l.split(':'));
  } catch {
    return []; // an unreadable database knows nobody, like a failed getpwuid/getgrgid
  }
}

export function securePermissions(st: Stats, uid: number, accounts: AccountFiles): boolean {
  if (st.uid !== 0 && st.uid !== uid) return false;
  if ((st.mode & 0o002) !== 0) return false;
  if ((st.mode & 0o020) === 0) return true;
  const group = lines(accounts.groupFile).find((g) => Number(g[2]) === st.gid);
  const owner = lines(accounts.passwdFile).find((p) => Number(p[2]) === st.uid);
  if (!group || !owner) return false;
  const members = (group[3] ?? '').split(',').filter((m) => m !== '');
  if (members.length === 0) return Number(owner[3]) === st.gid;
  return members.length === 1 && members[0] === owner[0];
}
