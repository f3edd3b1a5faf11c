export const PROJECT_DIR: string;
export function installedElectronVersion(): string;
export interface StandInPackage {
  outDir: string;
  appOutDir: string;
  electronVersion: string;
  effectiveConfig: Record<string, unknown>;
  effectiveConfigFile: string;
  desktopEntries: { deb?: string; appImage?: string };
  debMimeXml: string | null;
  debMimeInstallPath?: string | null;
  debDesktopInstallPath?: string | null;
  appImageDesktopFileName?: string;
}
export function packageLinuxWithStandIn(options: {
  outDir: string;
  configOverrides?: Record<string, unknown>;
  log?: (line: string) => void;
}): Promise<StandInPackage>;
