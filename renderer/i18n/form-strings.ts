/**
 * The strings of the shared form and overlay parts (renderer/components: Field, NumberField,
 * ConfirmButton, Dialog, UnsavedChanges): what a number field says about what was typed, and the buttons a
 * confirmation offers when its screen names none of its own.
 */
export const formStrings = {
  number: {
    required: 'Enter a number.',
    notANumber: (text: string) => (text === '' ? 'This is not a number: enter digits, like 12 or 0.5.' : `“${text}” is not a number: enter digits, like 12 or 0.5.`),
    whole: (got: string) => `Enter a whole number: got ${got}.`,
    between: (min: string, max: string, got: string) => `Enter a number from ${min} to ${max}: got ${got}.`,
    atLeast: (min: string, got: string) => `Enter ${min} or more: got ${got}.`,
    atMost: (max: string, got: string) => `Enter ${max} or less: got ${got}.`,
  },
  confirm: {
    cancel: 'Cancel',
    delete: 'Delete',
    remove: 'Remove',
  },
  dialog: {
    close: 'Close',
  },
  unsaved: {
    question: 'Discard unsaved changes?',
    discard: 'Discard',
    keep: 'Keep editing',
  },
} as const;
