// Vocabulary of the bulk catalog: English-ish words and names for titles, descriptions,
// categories, tags, events and custom fields. Some carry diacritics (café, Zürich) so that text
// search with diacritics folding is exercised. The order of each list is only a starting
// point: every organization ranks the names in its own shuffled order.

export const NOUNS = [
  "kitchen", "recipe", "garden", "market", "street", "city", "village", "river", "mountain", "island",
  "beach", "forest", "desert", "harbor", "bridge", "castle", "museum", "library", "stadium", "festival",
  "concert", "album", "song", "guitar", "piano", "drummer", "band", "orchestra", "dancer", "painter",
  "camera", "studio", "interview", "documentary", "trailer", "episode", "season", "finale", "premiere", "review",
  "match", "goal", "league", "tournament", "coach", "player", "team", "race", "marathon", "cyclist",
  "engine", "car", "truck", "motorcycle", "train", "airport", "flight", "journey", "adventure", "weekend",
  "breakfast", "dinner", "bakery", "bread", "cheese", "wine", "coffee", "tea", "chocolate", "pasta",
  "soup", "salad", "burger", "pizza", "dessert", "cake", "cookie", "orchard", "farmer", "harvest",
  "weather", "storm", "winter", "summer", "spring", "autumn", "sunrise", "sunset", "ocean", "lake",
  "volcano", "glacier", "wildlife", "eagle", "wolf", "bear", "whale", "dolphin", "horse", "puppy",
  "kitten", "meadow", "flower", "tree", "planet", "galaxy", "rocket", "satellite", "robot", "computer",
  "phone", "gadget", "startup", "economy", "budget", "election", "parliament", "policy", "summit", "treaty",
  "school", "teacher", "student", "lesson", "science", "history", "language", "poetry", "novel", "theater",
  "fashion", "designer", "runway", "jacket", "sneaker", "makeup", "hairstyle", "workout", "yoga", "runner",
  "doctor", "hospital", "vaccine", "nutrition", "sleep", "family", "wedding", "birthday", "holiday", "parade",
  "café", "crème brûlée", "jalapeño", "piñata", "façade", "soufflé", "entrée", "fiancée", "résumé", "smörgåsbord",
  "apartment", "cabin", "hotel", "resort", "cruise", "canyon", "trail", "camping", "fishing", "surfing",
  "skiing", "snowboard", "climber", "kayak", "sailboat", "lighthouse", "tower", "skyline", "subway", "neighborhood",
  "podcast", "newsroom", "headline", "reporter", "anchor", "debate", "protest", "court", "verdict", "scandal",
  "comedy", "sketch", "magician", "circus", "puppet", "cartoon", "superhero", "villain", "mystery", "legend",
];

export const ADJECTIVES = [
  "amazing", "ultimate", "hidden", "secret", "classic", "modern", "ancient", "tiny", "giant", "wild",
  "quiet", "loud", "fast", "slow", "easy", "quick", "healthy", "spicy", "sweet", "golden",
  "frozen", "sunny", "rainy", "electric", "vintage", "urban", "rural", "local", "global", "epic",
  "crazy", "perfect", "simple", "stunning", "beautiful", "strange", "famous", "forgotten", "lost", "new",
  "best", "worst", "first", "last", "final", "live", "exclusive", "official", "unseen", "rare",
  "naïve", "blasé", "raw", "fresh", "homemade", "traditional", "creative", "daring", "brilliant", "bold",
];

export const VERBS = [
  "cook", "bake", "build", "fix", "paint", "draw", "film", "edit", "train", "play",
  "win", "explore", "discover", "visit", "taste", "grow", "plant", "design", "sew", "knit",
  "climb", "swim", "ride", "drive", "fly", "sail", "dance", "sing", "write", "read",
  "learn", "teach", "repair", "restore", "clean", "organize", "decorate", "photograph", "record", "launch",
];

export const PLACES = [
  "Zürich", "München", "Málaga", "Kraków", "São Paulo", "Curaçao", "Reykjavík", "Besançon", "Göteborg", "Düsseldorf",
  "Córdoba", "Montréal", "Québec", "Genève", "Paris", "London", "Berlin", "Madrid", "Rome", "Lisbon",
  "Vienna", "Prague", "Budapest", "Warsaw", "Oslo", "Stockholm", "Helsinki", "Copenhagen", "Dublin", "Edinburgh",
  "New York", "Chicago", "Boston", "Seattle", "Denver", "Austin", "Miami", "Toronto", "Vancouver", "Mexico City",
  "Buenos Aires", "Lima", "Bogotá", "Santiago", "Cape Town", "Nairobi", "Cairo", "Marrakech", "Istanbul", "Dubai",
  "Mumbai", "Delhi", "Bangkok", "Singapore", "Tokyo", "Kyoto", "Seoul", "Sydney", "Melbourne", "Auckland",
];

export const CATEGORIES = [
  "News", "Sports", "Music", "Entertainment", "Movies", "Television", "Gaming", "Technology", "Science", "Business",
  "Finance", "Politics", "World", "Health", "Fitness", "Food", "Travel", "Fashion", "Beauty", "Lifestyle",
  "Education", "Kids", "Family", "Comedy", "Documentary", "Nature", "Animals", "Automotive", "Real Estate", "Home & Garden",
  "Art", "Culture", "History", "Weather", "Local", "Opinion", "Interviews", "Trailers", "Live Events", "Esports",
  "Football", "Basketball", "Tennis", "Cycling", "Motorsport", "Outdoors", "DIY", "Cooking", "Parenting", "Environment",
  "Space", "Crime", "Celebrity", "Café Culture", "Économie",
];

const EVENT_BASES = [
  "World Cup", "Olympic Games", "Fashion Week", "Film Festival", "Grand Prix", "Championship Final", "Tech Summit",
  "Music Awards", "Election Night", "City Marathon", "Book Fair", "Comic Con", "Jazz Festival", "Food Festival",
  "Climate Summit", "Auto Show", "Design Week", "Wine Fair", "Open Air", "Christmas Market", "Carnival",
  "Pride Parade", "Science Fair", "Game Expo", "Art Biennale",
];
const EVENT_YEARS = ["2023", "2024", "2025", "2026"];

/** ~100+ event names: base × year, some placed in a city. */
export const EVENTS = EVENT_BASES.flatMap((base, i) =>
  EVENT_YEARS.map((year, j) => ((i + j) % 3 === 0 ? `${base} ${PLACES[(i * 7 + j) % PLACES.length]} ${year}` : `${base} ${year}`)),
);

export const SHOWS = [
  "Morning Café", "The Daily Brief", "Kitchen Heroes", "Road Trip Diaries", "Game Night", "Wild Planet",
  "Tech Talk", "Market Watch", "Zürich Nights", "Garden Stories", "The Big Match", "Studio Sessions",
  "Street Food Tour", "Home Makeover", "Inside Politics", "Weekend Escape", "Science Hour", "Fashion Forward",
  "Comedy Corner", "Legends of Sport", "Café Chats", "The Crème de la Crème", "Night Shift", "Pet Rescue",
  "Build It", "Ocean Deep", "City Lights", "The Review Show", "Fit in Five", "Festival Live",
];

export const RATINGS = [
  ["G", 4],
  ["PG", 4],
  ["R", 2],
];

/** Syndicated ("service") categories the operator assigns. */
export const SERVICE_CATEGORIES = [
  "news", "sports", "entertainment", "music", "lifestyle", "technology", "business", "travel", "food", "gaming",
];

/** Alpha-3 country codes for syndication windows (USA first: the bench asks as a US viewer). */
export const GEOS = [
  "USA", "CAN", "MEX", "GBR", "IRL", "FRA", "DEU", "CHE", "AUT", "ITA",
  "ESP", "PRT", "NLD", "BEL", "SWE", "NOR", "DNK", "POL", "BRA", "ARG",
  "JPN", "KOR", "AUS", "NZL", "IND", "ZAF",
];

export const SYNDICATION_NAMES = ["default", "broadcast", "web", "emea-rights", "americas-rights", "ott", "partner"];
