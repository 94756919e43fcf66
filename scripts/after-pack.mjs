// electron-builder's afterPack hook (electron-builder.yml): flips Electron's fuses in the packed
// binary before it is signed and put into an installer. Fuses are switches compiled into the
// Electron executable; turning these off removes ways to run the app's binary as something else
// (a plain Node, a debugger target, an app loaded from loose files).
import path from 'node:path';

/** Fuse name (FuseV1Options) → state. Exported for scripts/packaging.test.ts. */
export const FUSES = Object.freeze({
  // `ELECTRON_RUN_AS_NODE=1 Toolsmith …` would be a Node that carries the app's signature.
  RunAsNode: false,
  // NODE_OPTIONS could preload code into the main process.
  EnableNodeOptionsEnvironmentVariable: false,
  // --inspect and friends would open a debugger on the main process.
  EnableNodeCliInspectArguments: false,
  // Cookies and local storage on disk are encrypted with the OS keychain's key.
  EnableCookieEncryption: true,
  // The app runs from app.asar only, never from a resources/app folder put beside it.
  OnlyLoadAppFromAsar: true,
  // app.asar is checked against the hash electron-builder embeds (macOS and Windows).
  EnableEmbeddedAsarIntegrityValidation: true,
  // The renderer is served over app://; file:// gets no extra privileges.
  GrantFileProtocolExtraPrivileges: false,
});

const EXTENSION = { darwin: '.app', mas: '.app', win32: '.exe', linux: '' };

/** The packed Electron executable, named as electron-builder names it. */
export function packedExecutable(context) {
  const platform = context.electronPlatformName;
  if (!(platform in EXTENSION)) throw new Error(`after-pack: unknown platform ${platform}`);
  const name = platform === 'linux' ? context.packager.executableName : context.packager.appInfo.productFilename;
  return path.join(context.appOutDir, `${name}${EXTENSION[platform]}`);
}

/** The argument @electron/fuses' flipFuses takes, from FUSES. */
export function fuseConfig(fuses, { FuseVersion, FuseV1Options }, platform) {
  const config = {
    version: FuseVersion.V1,
    // Flipping a fuse changes the binary, which voids the ad-hoc signature arm64 macOS requires
    // to start it; re-sign ad hoc (the real signature, when configured, comes after this hook).
    resetAdHocDarwinSignature: platform === 'darwin' || platform === 'mas',
  };
  for (const [name, on] of Object.entries(fuses)) {
    if (!(name in FuseV1Options)) throw new Error(`after-pack: @electron/fuses knows no fuse ${name}`);
    config[FuseV1Options[name]] = on;
  }
  return config;
}

export async function afterPack(context) {
  const fuses = await import('@electron/fuses');
  const binary = packedExecutable(context);
  await fuses.flipFuses(binary, fuseConfig(FUSES, fuses, context.electronPlatformName));
  console.log(`  • fuses set in ${binary}`);
}

export default afterPack;
