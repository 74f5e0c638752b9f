/**
 * CodeProject.AI Server's status answers (its StatusController): the liveness ping and the update
 * check that Blue Iris, dashboards and monitors call. They reveal detectd's version and nothing else,
 * so they answer without a key.
 */

/** CodeProject.AI's `VersionInfo`, as its server writes it (camelCase JSON). */
export interface VersionInfo {
  major: number;
  minor: number;
  patch: number;
  preRelease: string | null;
  securityUpdate: boolean;
  build: number;
  file: string | null;
  releaseNotes: string | null;
}

/** `GET /v1/status/ping` (and `/v1/server/status/ping`): CodeProject.AI answers its version. */
export interface VersionAnswer {
  success: true;
  /** The version as text. */
  message: string;
  version: VersionInfo;
}

/** `GET /v1/status/updateavailable`. */
export interface UpdateAnswer extends VersionAnswer {
  updateAvailable: boolean;
  latest: VersionInfo;
  current: VersionInfo;
}

/** A semantic version (`1.2.3-rc.1+7`) in CodeProject.AI's fields; parts that are not there are 0 or null. */
export function versionInfo(version: string): VersionInfo {
  const [, major = '0', minor = '0', patch = '0', preRelease, build] = /^(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-([^+]+))?(?:\+(\d+))?/.exec(version) ?? [];
  return {
    major: Number(major),
    minor: Number(minor),
    patch: Number(patch),
    preRelease: preRelease ?? null,
    securityUpdate: false,
    build: Number(build ?? 0),
    file: null,
    releaseNotes: null,
  };
}

export function versionAnswer(version: string): VersionAnswer {
  return { success: true, message: version, version: versionInfo(version) };
}

/**
 * detectd does not look for updates (it calls out to no one): the answer is always "no update",
 * with this version as both the current and the latest one.
 */
export function updateAnswer(version: string): UpdateAnswer {
  const current = versionInfo(version);
  return {
    success: true,
    message: `This is detectd ${version}; detectd does not check for updates (see its release notes)`,
    version: current,
    updateAvailable: false,
    latest: current,
    current,
  };
}
