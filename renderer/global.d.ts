import type { ContractClient } from '../shared/contract';

declare global {
  interface Window {
    /** Present in the Electron window (preload bridge); absent in a plain browser. */
    toolsmith?: ContractClient;
  }
}
export {};
