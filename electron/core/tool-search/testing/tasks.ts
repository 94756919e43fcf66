/**
 * Fifty needs, written as a person would ask for them, each naming the tool (`bundle/slug` of
 * ./real-registry.ts) that does it. The targets were not chosen by hand: they are every tenth
 * tool of the registry (the 4th, 14th, ... 494th). The needs were written from what each tool
 * does, in a user's words, before the ranking was measured on them; the ranking was tuned on
 * other needs and other tools, and nothing in it names these.
 */
export interface SearchTask {
  need: string;
  /** `bundle/slug`. */
  tool: string;
}

export const TASKS: readonly SearchTask[] = [
  { tool: 'github/issues-update', need: 'Change the title and body of an existing GitHub issue' },
  { tool: 'github/issues-remove-label', need: "Take the 'bug' label off one GitHub issue" },
  { tool: 'github/issues-delete-label', need: "Get rid of the 'wontfix' label from our GitHub repository altogether" },
  { tool: 'github/pulls-update', need: 'Edit the description of my open pull request on GitHub' },
  { tool: 'github/pulls-list-reviews', need: 'See which reviews were left on a GitHub pull request' },
  { tool: 'github/repos-list-branches', need: 'What branches does this GitHub repo have?' },
  { tool: 'jira/create-issue', need: 'File a new bug ticket in Jira' },
  { tool: 'jira/add-comment', need: 'Leave a note on a Jira ticket saying the fix is deployed' },
  { tool: 'jira/get-issue-watchers', need: 'Who is watching this Jira issue?' },
  { tool: 'jira/delete-issue-link', need: 'Unlink two Jira issues that were linked by mistake' },
  { tool: 'jira/delete-project', need: 'Delete an old Jira project we no longer use' },
  { tool: 'jira/get-user', need: "Look up a Jira user's details by their account id" },
  { tool: 'jira/get-statuses', need: 'What workflow statuses exist in our Jira?' },
  { tool: 'stripe/post-checkout-sessions', need: 'Start a Stripe Checkout session so the customer can pay on a hosted page' },
  { tool: 'stripe/get-customers-customer', need: "Pull up one Stripe customer's record" },
  { tool: 'stripe/get-invoices-invoice', need: 'Fetch a single Stripe invoice by its id' },
  { tool: 'stripe/get-payment-intents-intent', need: 'Check the status of a Stripe payment intent' },
  { tool: 'stripe/get-payouts', need: 'Show the payouts Stripe has sent to our bank' },
  { tool: 'stripe/get-products-id', need: 'Get the details of one product in Stripe' },
  { tool: 'twilio/fetch-balance', need: 'How much credit is left on our Twilio account?' },
  { tool: 'twilio/create-call', need: 'Make an outbound phone call with Twilio' },
  { tool: 'twilio/delete-recording', need: 'Delete a call recording from Twilio' },
  { tool: 'twilio/list-available-phone-number-mobile', need: 'Find mobile numbers we could buy in a given country on Twilio' },
  { tool: 'twilio/list-queue', need: 'List our Twilio call queues' },
  { tool: 'twilio/list-key', need: 'Show the API keys on our Twilio account' },
  { tool: 'box/post-files-id', need: 'Undelete a file in Box that someone sent to the trash' },
  { tool: 'box/get-files-id-trash', need: "Look at a file that's sitting in the Box trash" },
  { tool: 'box/put-files-id-remove-shared-link', need: 'Stop sharing a Box file by removing its shared link' },
  { tool: 'box/get-folders-trash-items', need: "What's in the Box trash right now?" },
  { tool: 'box/get-search', need: "Search my Box for files mentioning 'quarterly report'" },
  { tool: 'box/delete-web-links-id', need: 'Delete a web bookmark from Box' },
  { tool: 'box/post-group-memberships', need: 'Put a user into a Box group' },
  { tool: 'openai/cancel-response', need: 'Cancel a background OpenAI response that is taking too long' },
  { tool: 'openai/create-transcription', need: 'Turn this audio recording into text with OpenAI' },
  { tool: 'openai/create-upload', need: 'Begin a large multi-part file upload to OpenAI' },
  { tool: 'openai/list-fine-tuning-events', need: 'Check the progress events of my OpenAI fine-tuning job' },
  { tool: 'openai/create-assistant', need: 'Set up a new OpenAI assistant with custom instructions' },
  { tool: 'openai/get-conversation', need: 'Open an OpenAI conversation by its id' },
  { tool: 'discord/delete-message', need: 'Delete a message in a Discord channel' },
  { tool: 'discord/list-channel-invites', need: 'Which invite links exist for this Discord channel?' },
  { tool: 'discord/create-guild-channel', need: 'Create a new text channel on our Discord server' },
  { tool: 'discord/delete-guild-role', need: 'Remove a role from our Discord server entirely' },
  { tool: 'discord/create-guild-emoji', need: 'Upload a custom emoji to our Discord server' },
  { tool: 'discord/create-application-command', need: 'Register a new slash command for my Discord bot' },
  { tool: 'asana/duplicate-task', need: 'Make a copy of an Asana task' },
  { tool: 'asana/remove-tag-for-task', need: 'Untag an Asana task' },
  { tool: 'asana/get-project', need: 'Show me the details of one Asana project' },
  { tool: 'asana/add-members-for-project', need: 'Add two teammates as members of an Asana project' },
  { tool: 'asana/get-attachment', need: 'Get a file that was attached to an Asana task' },
  { tool: 'asana/get-projects-for-team', need: 'List all projects that belong to a team in Asana' },
];
