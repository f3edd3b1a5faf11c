// What a project file is to the operating system and to every part of the app: its extension, the name its
// document type has in file managers and its MIME type. The JSON is also read by the package configuration
// (electron-builder.config.mjs), which registers the type on every system.
import projectDocument from './project-document.json';

/** `servelab`, without the dot. */
export const PROJECT_EXTENSION: string = projectDocument.extension;
/** `.servelab`: what a project file's name ends with. */
export const PROJECT_SUFFIX = `.${PROJECT_EXTENSION}`;
export const PROJECT_TYPE_NAME: string = projectDocument.typeName;
export const PROJECT_MIME_TYPE: string = projectDocument.mimeType;

/** Whether a path names a project file (by its extension; whether it exists is for whoever opens it). */
export function isProjectPath(path: string): boolean {
  return path.length > PROJECT_SUFFIX.length && path.endsWith(PROJECT_SUFFIX);
}

/** `name` without a trailing `.servelab`: `/dir/study.servelab` → `/dir/study`. */
export function withoutProjectSuffix(path: string): string {
  return path.endsWith(PROJECT_SUFFIX) ? path.slice(0, -PROJECT_SUFFIX.length) : path;
}
