/** MCP Apps in a tool's card: the consent to show a server's page, the frame, and what the page asks. */
export const mcpAppStrings = {
  ask: {
    title: (server: string) => `'${server}' offers an app for this tool.`,
    body: "It shows the server's own page here, kept apart from Toolsmith: it can call this server's tools (asking as they require), post messages to this chat (asking first) and ask to open links.",
    reaches: (domains: string[]) => (domains.length ? `It reaches: ${domains.join(', ')}.` : 'It reaches no other sites.'),
    size: (size: string) => `(${size})`,
    refused: (list: string[]) => `Left out: ${list.join('; ')}.`,
    show: 'Show the app',
    always: (server: string) => `Always show apps of ${server}`,
    notNow: 'Not now',
  },
  frameLabel: (server: string) => `App of ${server}`,
  frameTitle: (server: string, tool: string) => `App of ${server}: ${tool}`,
  showAgain: 'Show the app',
  hide: 'Hide app',
  opening: 'Opening the app…',
  tooMany: 'Four apps are open already; this one starts when you ask.',
  failed: (message: string) => `The app could not be shown: ${message}`,
  navigated: 'The app left its page and was stopped.',
  closed: (reason: string) => `The app was closed: ${reason}.`,
  message: {
    title: (server: string) => `The app of ${server} wants to post:`,
    post: 'Post',
    cancel: 'Cancel',
    notInChat: 'Messages from apps go to a chat; this app is not in one.',
  },
  link: {
    title: (server: string) => `The app of ${server} wants to open:`,
    open: 'Open',
    cancel: 'Cancel',
  },
};
