declare const __SERVELAB_VERSION__: string | undefined;
