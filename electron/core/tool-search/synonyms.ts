/**
 * Words people use for the same thing in requests and in API documentation, shipped with
 * the ranking (no model, nothing downloaded). A query term found in a group also looks for
 * the group's other words, at EXPANSION_WEIGHT of its own weight. Groups are general API
 * vocabulary (actions, common objects, the names services give them), not any one tool's.
 */
import { stem } from './text';

/** The weight an expanded term gets, against 1 for a word of the query itself. */
export const EXPANSION_WEIGHT = 0.45;

const GROUPS: readonly string[] = [
  // actions
  'create add new make post insert open start register save store',
  'get fetch retrieve read show view see display look lookup return details info information',
  'id identifier sid',
  'list enumerate browse all index collection',
  'update edit modify change patch set alter rename adjust',
  'delete remove erase destroy drop discard purge',
  'search find query filter lookup locate look',
  'send post deliver dispatch notify',
  'cancel abort stop void revoke terminate',
  'upload attach put',
  'download export fetch',
  'copy duplicate clone fork',
  'move transfer relocate',
  'archive hide',
  'restore undelete recover untrash',
  'invite add join',
  'leave quit exit',
  'close resolve finish complete done',
  'reopen restart resume',
  'assign allocate give',
  'approve accept confirm',
  'reject deny decline refuse',
  'lock freeze',
  'unlock unfreeze',
  'pin star bookmark favourite favorite',
  'count number total',
  'check verify validate test',
  'run execute invoke trigger',
  'react reaction emoji thumbs',
  'vote upvote like',
  // things
  'message text sms chat note dm mms',
  'email mail',
  'call phone dial voice',
  'user member person people account profile',
  'customer client buyer payer',
  'team group squad',
  'org organization organisation company workspace tenant enterprise',
  'repo repository project codebase',
  'issue ticket bug task',
  'pr pullrequest pull merge',
  'comment reply note remark',
  'label tag category',
  'file document attachment doc',
  'folder directory',
  'image picture photo png jpg icon avatar media',
  'audio sound speech voice recording',
  'transcribe transcription transcript dictate',
  'translate translation',
  'video movie clip',
  'payment charge pay paid',
  'refund reimburse chargeback',
  'invoice bill billing',
  'subscription plan recurring membership',
  'price cost amount fee rate',
  'product item sku',
  'coupon discount promo promotion',
  'balance funds money',
  'payout withdrawal withdraw',
  'card credit debit',
  'server guild community',
  'channel room conversation thread',
  'role permission permissions privilege access',
  'ban block',
  'kick expel remove',
  'mute silence timeout',
  'webhook hook callback',
  'event activity log audit',
  'history changelog changes activity',
  'link url shared share',
  'website site web url link bookmark page',
  'version revision history',
  'trash bin deleted',
  'schedule calendar date due deadline',
  'board sprint backlog',
  'column section stage phase lane',
  'goal okr objective target',
  'epic story issue',
  'dashboard overview',
  'field column attribute property',
  'workflow transition status state done',
  'watcher follower subscriber watch follow subscribe',
  'collaborator collaboration contributor',
  'model engine',
  'embedding vector',
  'completion response answer',
  'fine tune tuning finetune train training',
  'batch bulk many multiple',
  'key token secret credential',
  'release tag',
  'deploy release ship publish production',
  'commit change',
  'branch ref',
  'gist snippet',
  'notification alert',
  'trigger alert threshold',
  'usage spend spending consumption minutes',
  'harmful moderation moderate abusive toxic offensive unsafe',
  'summarize summary completion chat prompt ask gpt llm',
  'bot application app integration',
  'avatar picture',
  'recording record',
  'queue waiting',
  'conference meeting',
  'number phone phonenumber',
  'address location',
  'login signin authenticated current myself',
];

/** stem -> the stems it expands to (its group-mates). */
export const EXPANSIONS: ReadonlyMap<string, readonly string[]> = (() => {
  const map = new Map<string, Set<string>>();
  for (const g of GROUPS) {
    const stems = [...new Set(g.split(/\s+/).filter(Boolean).map((w) => stem(w)))];
    for (const s of stems) {
      const set = map.get(s) ?? new Set<string>();
      for (const o of stems) if (o !== s) set.add(o);
      map.set(s, set);
    }
  }
  return new Map([...map].map(([k, v]) => [k, [...v]]));
})();
