// The app shell: name, navigation, theme and language pickers, the connection, the status bar, shortcuts, problems, units and the API client's errors.
const app = {
  'app.name': 'Servelab',
  'app.tagline': 'LLM serving lab',
  'app.version': 'v{version}',
  'app.windowTitle.unsaved': '• {title}',
  'app.pageLoading': 'Loading the page…',
  'app.pageFailed': 'This page could not be shown.',
  'app.pageRetry': 'Try again',

  'nav.label': 'Main',
  'nav.hosts': 'Hosts',
  'nav.engines': 'Engines',
  'nav.studies': 'Studies',
  'nav.results': 'Results',
  'nav.soon': 'Soon',
  'nav.studies.upcoming': 'Coming later: plan and run a study across engines, flags and workloads.',

  'theme.toDark': 'Switch to dark theme',
  'theme.toLight': 'Switch to light theme',

  // The picker shows each language by its own name, so 'language.name' is that language's name for itself.
  'language.label': 'Language',
  'language.name': 'English',

  'connection.ipc': 'Desktop app',
  'connection.websocket': 'Browser · loopback',
  'connection.lost': 'Lost the connection to the Servelab core. Reconnecting…',
  'connection.status': 'Connection: {status}',
  'connection.state.connecting': 'connecting',
  'connection.state.open': 'connected',
  'connection.state.reconnecting': 'reconnecting',
  'connection.state.closed': 'closed',

  'statusBar.label': 'Status',
  'statusBar.unsaved': 'unsaved changes',
  'statusBar.trials': '{done} of {total} trials done',
  'statusBar.installs': 'Installs running: {count}',
  'statusBar.prefetches': 'Model downloads running: {count}',
  'statusBar.benchmarks': 'Benchmarks running: {count}',

  'shortcuts.title': 'Keyboard shortcuts',
  'shortcuts.close': 'Close',
  'shortcuts.action': 'Action',
  'shortcuts.keys': 'Keys',
  'shortcuts.ctrl': 'Ctrl',
  'shortcuts.shift': 'Shift',
  'shortcuts.outsideText': 'when not typing in a field',
  'shortcuts.command.newStudy': 'New study',
  'shortcuts.command.open': 'Open a project',
  'shortcuts.command.openGuide': 'Open a tuning guide as a study',
  'shortcuts.command.save': 'Save the study draft',
  'shortcuts.command.saveAs': 'Save the open project as a copy',
  'shortcuts.command.export': 'Export the open project’s report',
  'shortcuts.command.page:hosts': 'Go to Hosts',
  'shortcuts.command.page:engines': 'Go to Engines',
  'shortcuts.command.page:studies': 'Go to Studies',
  'shortcuts.command.page:results': 'Go to Results',
  'shortcuts.command.shortcuts': 'Show the keyboard shortcuts',
  'commands.nothingOpen': 'Open a project first: {action} works on the open project.',

  'notConnected.title': 'Not connected to a Servelab core',
  'notConnected.body':
    'This page talks to a Servelab core, either inside the desktop app or through the address the core prints when it starts.',
  'notConnected.howTo': 'Start the core and open the newest address it prints (it ends with ?code=…; each one signs in one tab):',
  'notConnected.command': 'npx servelab serve',

  'problems.titleOne': 'Servelab found a problem it left for you to fix',
  'problems.title': 'Servelab found {count} problems it left for you to fix',

  'units.mib': '{value} MiB',
  'units.gib': '{value} GiB',
  'units.tib': '{value} TiB',

  'api.unknownCall': 'The core offers no call named {name}.',
  'api.connectionDropped': 'The connection to the Servelab core dropped before it answered {name}. Reconnecting; try again.',
  'api.connectFailed': 'Could not reach the Servelab core for {name}. Is it still running? Reconnecting…',
  'api.closed': 'The connection to the Servelab core was closed.',
  'api.serverStopped': 'The Servelab core stopped (servelab serve ended). Start it again and open the new address it prints.',
  'api.sessionRevoked':
    'This tab was signed out because its sign-in link was used a second time. If you did not open it twice, someone else on this machine may have it: stop servelab serve and start it again.',
  'api.impostor':
    'The server on this port could not prove it is the Servelab core this tab signed in to, so the page stopped talking to it. Start servelab serve and open the new address it prints.',
  'api.signInUnreachable': 'Could not reach the Servelab core to sign in. Is servelab serve still running?',
  'api.signInRefused': 'The Servelab core refused the sign-in (HTTP {status}). Open the newest address servelab serve printed.',
} as const;

export default app;
