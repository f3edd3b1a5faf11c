/**
 * Project files the system asked the app to open, held until there is somewhere to deliver them: macOS sends
 * `open-file` before the app is ready, and a second launch can hand its file over while this one still starts.
 */
export class ProjectInbox {
  private readonly early: string[] = [];
  private deliver: ((paths: string[]) => void) | null = null;

  add(paths: readonly string[]): void {
    if (paths.length === 0) return;
    if (this.deliver) this.deliver([...paths]);
    else this.early.push(...paths);
  }

  /** From now on paths go straight to `deliver`; those that waited go first. */
  connect(deliver: (paths: string[]) => void): void {
    this.deliver = deliver;
    if (this.early.length > 0) deliver(this.early.splice(0));
  }
}
