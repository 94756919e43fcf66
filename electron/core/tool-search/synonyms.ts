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
  'add slap stick tack append',
  'get fetch retrieve read show view see display look lookup return details info information grab',
  'id identifier sid',
  'list enumerate browse all index collection',
  'update edit modify change patch set alter rename adjust tweak amend',
  'delete remove erase destroy drop discard purge nuke wipe scrap ditch',
  'search find query filter lookup locate look',
  'send post deliver dispatch notify ping',
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
  // everyday topics people ask tools about (a registry of general tools: news, weather, travel, money)
  'crypto cryptocurrency cryptocurrencies bitcoin ethereum btc eth coin coins',
  'stock stocks equity equities ticker nasdaq dow market markets',
  'finance financial investing investment investments portfolio',
  'apartment apartments flat flats condo condos housing rental rent renting lease tenant',
  'house houses home homes estate realty',
  'paper papers article articles literature research academic scholarly journal journals study studies',
  'job jobs career careers hiring vacancy vacancies employment employer',
  'recipe recipes cooking cook dish dishes meal meals cuisine',
  'food restaurant restaurants dining dinner lunch eat',
  'flight flights airline airlines plane airfare',
  'hotel hotels lodging accommodation accommodations',
  'trip trips travel travelling traveling vacation holiday itinerary tour',
  'movie movies film films cinema',
  'song songs music album albums playlist',
  'weather forecast temperature rain climate',
  'seo keyword keywords ranking rankings backlinks',
  'course courses lesson lessons tutorial learning',
  'law laws legal lawyer attorney',
  'diet nutrition calorie calories healthy',
  'doctor medical symptom symptoms medicine',
  'game games gaming',
  'car cars vehicle vehicles automobile',
  'shop shopping buy purchase deal deals',
  'charity donate donation donations nonprofit',
  'map maps route navigation',
  'pdf document documents',
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

/** The weight of a broader word ("product" for "laptop"), against 1 for a word of the query itself. */
export const BROADER_WEIGHT = 0.45;

/**
 * Everyday things and the broader words tools describe them by: "a laptop under $800" is a
 * product to shop for, "will I need an umbrella" asks for the weather. One way only: a need
 * for "products" is not one for laptops. Words APIs use in their own sense ("token", "phone",
 * "card", "share", "notebook", "breaking") are not here.
 */
const BROADER_LINES: readonly string[] = [
  'laptop laptops computer computers pc tv television headphones headphone earbuds earphones camera cameras smartphone smartphones tablet tablets gadget gadgets electronics > product shop',
  'mattress sofa couch furniture shoes sneakers boots jacket jackets coat clothes clothing shirt dress dresses jewelry jewellery handbag perfume cosmetics skincare makeup appliance appliances > product shop',
  'blockchain nft nfts defi ethereum solana cardano dogecoin ripple litecoin altcoin altcoins > crypto finance',
  'etf etfs dividend dividends trading trader traders investor investors portfolio > stock finance',
  'headline headlines journalism journalist newspaper newspapers > news',
  'umbrella rainy snow snowfall snowy sunny sunscreen humidity humid storm storms windy wind hurricane tornado > weather forecast',
  'flowchart flowcharts diagram diagrams plot plots visualize visualization visualisation graph graphs > chart',
  'tutor tutors tutoring teacher teachers class classes lecture lectures workshop workshops seminar seminars curriculum syllabus > course learn',
  'attraction attractions sightseeing tourist tourists tourism landmark landmarks destination destinations > travel trip',
  'legislation regulation regulations statute statutes lawsuit lawsuits court > law legal',
  'rewrite rewriting rephrase paraphrase reword proofread polish humanize > rewrite',
  'condo condos condominium townhouse mortgage mortgages realtor > house estate',
  'startup startups > business company',
  'symptom symptoms illness disease diseases > health medical',
  'workout workouts exercise exercises gym fitness > health',
  'podcast podcasts episode episodes > audio',
  'yen dollar dollars usd eur euro euros gbp pound pounds rupee rupees peso pesos franc francs usdt > currency',
  'motel motels hostel hostels lodge lodges inn resort resorts > hotel accommodation',
  'internship internships > job',
  'vegetarian vegan fruit fruits vegetable vegetables grains protein > diet food',
  'scientific scientist scientists > research',
  'blog blogs blogging wordpress > website',
];

/** stem -> the broader stems it also looks for. */
export const BROADER: ReadonlyMap<string, readonly string[]> = (() => {
  const map = new Map<string, Set<string>>();
  for (const line of BROADER_LINES) {
    const [narrow = '', broad = ''] = line.split('>');
    const to = [...new Set(broad.split(/\s+/).filter(Boolean).map((w) => stem(w)))];
    for (const w of narrow.split(/\s+/).filter(Boolean)) {
      const s = stem(w);
      const set = map.get(s) ?? new Set<string>();
      for (const t of to) if (t !== s) set.add(t);
      map.set(s, set);
    }
  }
  return new Map([...map].map(([k, v]) => [k, [...v]]));
})();
