# Written by scripts/sync-version.mjs from package.json (`npm version` runs it): the npm package and this client
# share one version. Edit package.json, never this file.
__version__ = "0.1.0"
