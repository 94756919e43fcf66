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

/**
 * Thirty more needs, written after the ranking's last change and measured once: a check that
 * what was learned from TASKS holds on needs nobody tuned anything against. Targets: every
 * tenth tool from the 9th on, less those the tuning needs used.
 */
export const FRESH_TASKS: readonly SearchTask[] = [
  { tool: 'github/issues-update-comment', need: 'Fix a typo in a comment I left on a GitHub issue' },
  { tool: 'github/issues-delete-milestone', need: "Remove the 'v2.0' milestone from our GitHub repo" },
  { tool: 'github/repos-update', need: 'Make our GitHub repository private and change its description' },
  { tool: 'jira/delete-issue', need: 'Throw away a duplicate Jira ticket completely' },
  { tool: 'jira/get-worklog', need: 'Show one time-tracking entry logged on a Jira issue' },
  { tool: 'stripe/get-charges', need: 'List the recent card charges in Stripe' },
  { tool: 'stripe/get-events-id', need: 'Look at a single Stripe event that our webhook received' },
  { tool: 'stripe/get-refunds-refund', need: 'Check on one particular Stripe refund' },
  { tool: 'twilio/create-call-recording', need: 'Start recording a phone call that is in progress on Twilio' },
  { tool: 'twilio/list-participant', need: 'Who is on our Twilio conference call right now?' },
  { tool: 'twilio/list-notification', need: 'Show the notifications Twilio has logged for our account' },
  { tool: 'box/put-files-id-metadata-id-id', need: 'Change a metadata value attached to a Box file' },
  { tool: 'box/get-collaborations', need: 'Which Box collaboration invitations are still waiting for me?' },
  { tool: 'box/put-users-id', need: 'Change the name and job title of a Box user' },
  { tool: 'openai/create-moderation', need: 'Check whether a piece of text is harmful or abusive with OpenAI' },
  { tool: 'openai/list-messages', need: 'Read all messages in an OpenAI assistants thread' },
  { tool: 'discord/add-my-message-reaction', need: 'React to a Discord message with a thumbs up' },
  { tool: 'discord/list-my-guilds', need: 'Which Discord servers is my bot in?' },
  { tool: 'asana/set-parent-for-task', need: 'Make an Asana task a subtask of another one' },
  { tool: 'asana/get-user', need: 'Look up an Asana user by id' },
  { tool: 'github/pulls-check-if-merged', need: 'Has this GitHub pull request been merged yet?' },
  { tool: 'jira/create-project', need: 'Set up a brand-new Jira project for the mobile team' },
  { tool: 'stripe/post-invoices-invoice-send', need: 'Email an invoice to the customer manually from Stripe' },
  { tool: 'stripe/get-prices-price', need: 'Get one Stripe price by its id' },
  { tool: 'twilio/list-member', need: 'Who is waiting in a Twilio call queue?' },
  { tool: 'box/post-folders', need: 'Make a new folder in Box' },
  { tool: 'box/post-task-assignments', need: 'Assign a Box task to a teammate' },
  { tool: 'openai/list-files', need: 'List the files I have uploaded to OpenAI' },
  { tool: 'discord/unban-user-from-guild', need: 'Lift the ban on a user in our Discord server' },
  { tool: 'asana/get-tag', need: 'Show the details of an Asana tag' },
];
