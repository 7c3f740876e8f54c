/**
 * The words a mutation must never change because a task's meaning hinges on them, as data of the mutation
 * domain: harm terms (what makes a request one the agent must refuse: a synonym mutator once turned "bomb" into
 * "dud", and the mutated refusal scenario no longer asked for anything harmful) and number words (it turned
 * "seven" into "vii"). The harm terms cover the categories of the `harmful_content` lexicon (weapons, violence,
 * self-harm, hate, sexual content involving minors, drugs, cyber attacks, fraud, extremism, crime, trafficking)
 * and the dual-use requests of the bundled catalog; a test checks that every lexicon match in the catalog's
 * inputs survives every mutator (plugins/mutators/protection.test.ts).
 */

/** Stems: a word starting with one of these is a harm term (`bomb` → `bombs`, `bombing`). Chosen so that no common harmless word starts with one. */
export const HARM_STEMS: readonly string[] = `
bomb explosiv detonat grenade shrapnel napalm thermite molotov nitroglycer gunpowder firearm handgun shotgun rifle pistol
ammunition weapon munition missile landmine silencer suppressor sarin ricin anthrax toxin poison pathogen bioweapon cyanide
arsenic nerve-agent murder assassin strangl tortur kidnap hostage massacre behead dismember decapitat assault violen
shooting stabbing genocide terroris extremis radicali jihad manifesto martyr suicid self-harm overdos lethal fatal deadly
starv anorex bulimi thinspir cocaine heroin fentanyl methamphetamine opioid narcotic ecstasy cannabis marijuana
pseudoephedrine precursor vape vaping nicotine cigarette tobacco alcohol underage malware ransom trojan keylog spyware
stalkerware rootkit botnet infostealer phish exploit hack jailbreak backdoor shellcode bruteforce brute-force exfiltrat
credential password privilege zero-day antivirus inject bypass evade evasion obfuscat fraud launder structuring smuggl
counterfeit forgery forged forging backdat bribe bribery embezzl scam extort blackmail theft thief steal stole burglar
robbery shoplift pickpocket hotwir lockpick arson accelerant traffick bondage csam porn sexual nude groom minors jailbait
lolicon supremac dehumaniz subhuman nazi slur doxx stalk misinformation disinformation impersonat fake
`.split(/\s+/).filter(Boolean);

/** Whole words (a plural `s` allowed) that are harm terms but too short or too common as stems. */
export const HARM_WORDS: readonly string[] = `
gun guns ammo ied tatp anfo kill kills killed killing meth crack lsd mdma ghb drug drugs weed virus worm ddos dox spy
stab shoot rape abuse minor child hate lock locks`.split(/\s+/).filter(Boolean);

/** Number words: cardinals, ordinals and multipliers (`seven` must not become `vii`). */
export const NUMBER_WORDS: readonly string[] = `
zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen
nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred hundreds thousand thousands million millions billion
billions trillion dozen dozens half twice thrice double triple quarter first second third fourth fifth sixth seventh eighth
ninth tenth eleventh twelfth hundredth thousandth`.split(/\s+/).filter(Boolean);

/**
 * Phrases whose words are harmless alone but harmful together (`molotov cocktail`, `lethal dose`): protected
 * whole, a plural `s` allowed on the last word. Words are matched with any whitespace between them.
 */
export const HARM_PHRASES: readonly string[] = [
  'molotov cocktail', 'lethal dose', 'fatal dose', 'overdose on', 'mustard gas', 'nerve agent', 'ghost gun', 'auto sear',
  'blasting cap', 'det cord', 'black powder', 'ammonium nitrate', 'potassium chlorate', 'pressure cooker', '3d printed',
  'red phosphorus', 'anhydrous ammonia', 'birch reduction', 'shake and bake', 'meth lab', 'crystal meth', 'cook meth',
  'make meth', 'dark web', 'darkweb', 'money mule', 'card skimmer', 'cvv dump', 'pump and dump', 'ponzi scheme', 'fake id',
  'fake passport', 'fake invoice', 'fake review', 'tax evasion', 'evade taxes', 'identity theft', 'wire fraud',
  'credential stuffing', 'privilege escalation', 'race war', 'master race', 'racial purity', 'ethnic cleansing',
  'great replacement', 'white power', 'lone wolf', 'holy war', 'forced labour', 'forced labor', 'debt bondage',
  'go back to your country', 'kill yourself', 'end your life', 'hang yourself', 'slit your wrists', 'cut yourself',
  'burn yourself', 'starve yourself', 'dispose of the body', 'get rid of the body', 'without leaving any evidence',
  'without leaving a trace', 'make it look like an accident', 'painless way', 'school shooting', 'mass shooting',
  'armed robbery', 'car theft', 'cp links', 'child porn', 'launder money', 'launder the money', 'launder funds',
  'launder the funds', 'launder the proceeds', 'launder the cash', 'laundering money', 'laundering the money',
  'money laundering', 'insurance fraud', 'bank fraud', 'tax fraud', 'benefits fraud', 'credit card fraud', 'join isis', 'join isil', 'join al-qaeda', 'join al qaeda', 'join al-shabaab', 'join the jihad',
];
