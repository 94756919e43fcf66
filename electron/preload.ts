// The only bridge between the window and the main process: `window.toolsmith.{call,on}`.
import { contextBridge, ipcRenderer } from 'electron';
import { createBridge } from './host/shell/bridge';

contextBridge.exposeInMainWorld('toolsmith', createBridge(ipcRenderer));
