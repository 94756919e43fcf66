/**
 * Every user-visible string in one place, so the UI can be translated. Components read
 * `t.section.key`; nothing else holds English text.
 */
export const en = {
  app: { name: 'Toolsmith', skipToContent: 'Skip to content', mainNav: 'Main' },
  nav: { chat: 'Chat', tools: 'Tools', inspect: 'Inspect', settings: 'Settings' },
  connection: {
    connecting: 'Connecting to Toolsmith…',
    lost: 'Connection lost. Reconnecting…',
    signedOut: 'Your session has ended. Reload the page, or open a new sign-in link from the terminal.',
  },
  chat: {
    title: 'Chat',
    emptyTitle: 'No conversations yet',
    emptyBody:
      'Conversations will be listed here. In a conversation, type + to pick a tool and run it with no model involved, or connect a model in Settings and let it call your tools.',
  },
  tools: {
    title: 'Tools',
    emptyTitle: 'No tools yet',
    emptyBody: 'Bundles of tools appear here: the built-in ones, and those you create, import or build from a curl command.',
  },
  inspect: {
    title: 'Inspect',
    tabs: { buffers: 'Buffers', files: 'Files', outputs: 'Stored outputs', memory: 'Memory', timeline: 'Timeline' },
    empty: {
      buffers: 'No buffers yet. Route a tool’s output to a buffer with output=variable:NAME and it appears here.',
      files: 'No files yet. Tools that write into the workspace folder put their files here.',
      outputs: 'No stored outputs. Results too large for a model are kept here behind a handle.',
      memory: 'No memory blocks. Models with memory tools keep their notes here.',
      timeline: 'No timeline yet. Every step of a conversation with a model lands here.',
    },
  },
  settings: {
    title: 'Settings',
    appearance: 'Appearance',
    theme: 'Theme',
    themes: { system: 'Follow the system', light: 'Light', dark: 'Dark' },
    workspaceSection: 'Workspace',
    workspace: 'Workspace folder',
    workspaceHelp: 'Tools read and write files only inside this folder. Leave empty to use the one in the data folder.',
    networkSection: 'Network',
    allowedHosts: 'Allowed hosts',
    allowedHostsHelp: 'One per line. HTTP tools may reach only these hosts, e.g. api.example.com or *.example.com:8443.',
    save: 'Save',
    saving: 'Saving…',
    saved: 'Saved',
    reset: 'Discard changes',
    about: 'About',
    version: 'Version',
    dataDir: 'Data folder',
    host: 'Running as',
    hosts: { electron: 'Desktop app', headless: 'Headless host (browser)' },
    problems: 'Problems found in the data folder',
    noProblems: 'No problems found.',
    movedTo: 'set aside as',
  },
  shortcuts: { screens: 'Alt+1…4 or Ctrl+1…4 switch screens' },
  errors: { loadFailed: 'Could not load', retry: 'Retry' },
} as const;

export const t = en;
