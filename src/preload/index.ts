import { contextBridge, ipcRenderer } from 'electron';
import { buildBridge } from './build-bridge';

// contextIsolation is on: the page gets a frozen copy of the bridge, never ipcRenderer itself.
contextBridge.exposeInMainWorld('servelab', buildBridge(ipcRenderer));
