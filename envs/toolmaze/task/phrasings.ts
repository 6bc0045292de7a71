/**
 * Alternative phrasings of each capability for task texts (the capability table's `phrase` is the first one).
 * Every alternative uses exactly the capability's `{param}` placeholders, in the same order when a capability has
 * several parameters of one type ("from {origin} to {destination}"), so literals and references fill in the same way.
 * Loaded once and checked against the capability tables (`phrasingsOf` throws on a mismatch).
 */
import { corpus } from "../world/corpus.js";

const ALTERNATIVES: Readonly<Record<string, readonly string[]>> = {
  // Financial
  stock_quote: ["pull up the current stock quote for {ticker}", "look up the latest quote for {ticker}"],
  company_news: ["look for the most recent news headline on {ticker}", "grab the top news headline about {ticker}"],
  news_sentiment: ["run a sentiment score on {headline}", "rate how positive {headline} sounds"],
  social_sentiment: ["gauge the social-media sentiment around {ticker}", "check how social media feels about {ticker}"],
  trade_signal: ["log {sentiment} as a trade signal for {ticker}", "save {sentiment} to the research log as a signal for {ticker}"],
  fx_rate: ["look up the {base}/{quote} rate", "check today's {base}/{quote} exchange rate"],
  fx_alert: ["create a rate alert at {rate} that notifies {recipient}", "have an alert at {rate} sent to {recipient}"],
  convert_amount: [
    "change {amount} from {from_currency} into {to_currency}",
    "work out what {amount} from {from_currency} is in {to_currency}",
  ],
  account_balance: ["look up the available balance on {account_id}", "see how much money is available in {account_id}"],
  latest_transaction: ["pull the latest posted transaction for {account_id}", "look up the last transaction on {account_id}"],
  dispute_transaction: ['open a dispute on {transaction_id} with the note "{note}"', 'contest {transaction_id}, adding the note "{note}"'],
  create_invoice: ["draw up an invoice for {amount} addressed to {client}", "make out an invoice for {amount} to {client}"],
  send_invoice: ["e-mail {invoice_id} to {recipient}", "deliver {invoice_id} to {recipient} by e-mail"],
  pay_invoice: ["settle {invoice_id} from {account_id}", "pay off {invoice_id} using {account_id}"],
  transfer_funds: ["send {amount} from {account_id} to {payee}", "move {amount} out of {account_id} to {payee}"],
  place_order: ["purchase {quantity} shares of {ticker}", "place a market order for {quantity} shares of {ticker}"],
  price_alert: ["create a price alert on {ticker} at {threshold}", "alert me when {ticker} trades at {threshold}"],
  downside_risk: ["work out the drawdown probability given {change_pct}", "estimate the risk of a drawdown from {change_pct}"],
  risk_report: [
    "publish a risk note with {drawdown_probability} to {recipient}",
    "send {recipient} a risk note stating {drawdown_probability}",
  ],
  earnings_date: ["find out when {ticker} next reports earnings", "check the next earnings date for {ticker}"],
  earnings_reminder: ["set a reminder on {earnings_date} for the {ticker} earnings", "put a reminder on {earnings_date} about {ticker}"],
  // Travel
  resolve_airport: ["look up the main airport for {city}", "work out which airport serves {city}"],
  geocode_city: ["find the latitude and longitude of {city}", "geocode {city} to coordinates"],
  nearest_airport: ["look up the closest airport to {coordinates}", "find which airport is nearest to {coordinates}"],
  current_weather: ["look up the weather right now in {city}", "find out what the weather is like in {city}"],
  weather_at_coords: ["check the current weather at {coordinates}", "look up the weather conditions at {coordinates}"],
  search_flights: [
    "look for flights from {origin} to {destination} on {departure_date}",
    "find a flight from {origin} to {destination} departing {departure_date}",
  ],
  book_flight: ["book the flight {offer_id} for {passenger}", "book a seat on the flight {offer_id} for {passenger}"],
  hotels_near: [
    "search for a hotel near {coordinates} from {checkin} for {nights} nights",
    "look for a hotel close to {coordinates} checking in {checkin} for {nights} nights",
  ],
  hotels_in_city: [
    "search for a hotel in {city} from {checkin} for {nights} nights",
    "look for a hotel in {city} checking in {checkin} for {nights} nights",
  ],
  book_hotel: ["book {hotel_offer_id} for {guest}", "make a hotel reservation on {hotel_offer_id} for {guest}"],
  fare_to_currency: ["express {amount} in {target_currency}", "convert the fare {amount} into {target_currency}"],
  route_distance: [
    "get the driving distance from {origin} to {destination_city}",
    "find out how far a drive from {origin} to {destination_city} is",
  ],
  taxi_fare: ["work out what a taxi would cost for {distance_km}", "get a taxi fare estimate for {distance_km}"],
  email_itinerary: ["send the itinerary for {booking_ref} to {recipient}", "e-mail {recipient} the itinerary of {booking_ref}"],
  sms_itinerary: ["send {booking_ref} by text to {phone}", "text the booking reference {booking_ref} to {phone}"],
  log_trip_expense: ["record {amount} as a trip expense", "file {amount} as a travel expense"],
  city_timezone: ["find the time zone of {city}", "check which time zone {city} is in"],
  next_local_morning: ["work out the next morning in {timezone}", "get the next local 8 am in {timezone}"],
  trip_reminder: ['add a trip reminder at {remind_at} saying "{note}"', 'create a travel reminder for {remind_at} with the note "{note}"'],
  temperature_to_f: ["turn {temperature_c} into Fahrenheit", "express {temperature_c} in degrees Fahrenheit"],
  weather_alert: ["push a weather alert with {temperature_f} to {phone}", "notify {phone} with a weather alert about {temperature_f}"],
  // Office
  find_contact: ["find {name} in the address book", "search the address book for {name}"],
  query_availability: ["look for a free {duration} slot on {date}", "check the calendar for a free {duration} slot on {date}"],
  schedule_meeting: [
    "book a meeting about {topic} at {start} with {attendee}",
    "put a meeting about {topic} in the calendar at {start} with {attendee}",
  ],
  search_drive: ["look up the document about {query} in the shared drive", "search the shared drive for the document about {query}"],
  summarize_document: ["summarise the contents of {document_id}", "produce a summary of the stored {document_id}"],
  send_email: ["send {body} by e-mail to {to}", "write an e-mail with {body} to {to}"],
  export_pdf: ["save {document_id} as a PDF", "turn {document_id} into a PDF"],
  share_link: ["make a view-only share link for {document_id}", "generate a sharing link for {document_id}"],
  email_link: ["e-mail {link} to {to}", "share {link} with {to} by e-mail"],
  create_task: ['add a to-do "{title}" due {due}', 'make a task called "{title}" due {due}'],
  task_reminder: ["set a reminder for {task_id} at {at}", "add a reminder to {task_id} for {at}"],
  meeting_notes: ["write up notes for {meeting_id}", "generate meeting notes for {meeting_id}"],
  post_channel: ["share {text} in {channel}", "post a message with {text} to {channel}"],
  contact_details: [
    "get the full contact record with the phone number for {contact_id}",
    "pull the phone number from the record of {contact_id}",
  ],
  directory_phone: ["look up {name}'s phone number in the corporate directory", "get {name}'s number from the corporate directory"],
  send_sms: ['send the text "{text}" to {phone}', 'message {phone} by SMS: "{text}"'],
  convert_timezone: ["express {start} in the {timezone} time zone", "translate {start} into {timezone} time"],
  calendar_invite: ["send {to} an invite to {meeting_id}", "send an invitation for {meeting_id} to {to}"],
  sign_document: ["send {document_id} to {signer} for e-signature", "ask {signer} to sign {document_id}"],
  latest_email: ["read the most recent e-mail thread from {sender}", "open the latest e-mail thread from {sender}"],
  proofread_text: ["fix the grammar and spelling in {text}", "proofread and correct {text}"],
  // Shopping
  search_products: ["look up a {query} in the catalogue", "search the catalogue for a {query}"],
  product_details: ["check the price and rating of {product_id}", "look up the current price and rating of {product_id}"],
  compare_prices: ["find the best price across merchants for {product_id}", "compare merchant offers for {product_id}"],
  check_stock: [
    "see how many units of {product_id} are in stock near {postal_code}",
    "check availability of {product_id} near {postal_code}",
  ],
  add_to_cart: ["put {quantity} of {product_id} in the cart", "add {quantity} units of {product_id} to my cart"],
  checkout: ["complete the checkout of {cart_id}", "place the order for {cart_id}"],
  track_order: ["look up the tracking number for {order_id}", "find the carrier tracking number of {order_id}"],
  carrier_track: ["check the carrier status of package {tracking_number}", "look up when package {tracking_number} will arrive"],
  order_eta: ["get the expected delivery date of {order_id} from the merchant", "check the expected delivery date of {order_id}"],
  shipping_estimate: [
    "get a shipping quote for {product_id} to {postal_code}",
    "work out delivery date and cost of {product_id} to {postal_code}",
  ],
  notify_delivery: ["send the delivery date {eta} by text to {phone}", "let {phone} know the delivery date {eta} by SMS"],
  email_receipt: ["send the receipt for {order_id} to {to}", "forward the receipt of {order_id} to {to}"],
  create_return: ['open a return for {order_id} with the reason "{reason}"', 'return {order_id}, giving the reason "{reason}"'],
  refund_status: ["look up the refund amount for {return_id}", "see how much will be refunded for {return_id}"],
  request_split: ["request that {payee} split {amount}", "send {payee} a request to split {amount}"],
  convert_price: ["express {amount} in {currency}", "change {amount} into {currency}"],
  find_coupon: ["look for a coupon code for a {query}", "find the best coupon code for a {query}"],
  share_deal: ["send {coupon_code} to {to}", "forward the coupon {coupon_code} to {to} by e-mail"],
  restock_alert: ["sign {phone} up for restock alerts for {product_id}", "have {phone} alerted when {product_id} is back in stock"],
  recent_order: ["look up the most recent order from {customer}", "find the last order {customer} placed"],
  low_stock_report: [
    "flag {units_available} units left for {product_id} on the merchant dashboard",
    "post a low-stock warning of {units_available} units for {product_id}",
  ],
  // IoT
  list_devices: ["look up the main device in the {room}", "find which device controls the {room}"],
  read_thermostat: ["get the current reading of {device_id}", "check the temperature reading on {device_id}"],
  room_temperature: ["check the temperature sensor in the {room}", "get the temperature reported by the {room} sensor"],
  comfort_setpoint: ["calculate a comfort set-point from {temperature_c}", "derive an energy-saving set-point from {temperature_c}"],
  set_thermostat: ["change {device_id} to {target_c}", "adjust {device_id} to {target_c}"],
  energy_usage: ["check how much energy {device_id} used", "look up the energy consumption of {device_id}"],
  energy_cost: ["work out the cost of {energy_kwh} at the current tariff", "calculate what {energy_kwh} costs at the current tariff"],
  energy_report: ["send a report of {cost} to {phone}", "text an energy-cost report of {cost} to {phone}"],
  power_off: ["turn off {device_id}", "switch {device_id} off"],
  air_quality: ["read the air-quality monitor in the {room}", "get the CO2 and humidity levels in the {room}"],
  ventilation_plan: ["calculate the ventilation time needed for {co2_ppm}", "figure out the ventilation run time for {co2_ppm}"],
  start_ventilation: ["turn on the ventilation in the {room} for {run_minutes}", "ventilate the {room} for {run_minutes}"],
  lock_door: ["lock the smart lock {device_id}", "engage the lock on {device_id}"],
  create_schedule: ["schedule {device_id} to switch on at {at}", "add a schedule that switches {device_id} on at {at}"],
  off_peak_window: [
    "look up the next off-peak tariff window for {postal_code}",
    "check when the next off-peak window starts for {postal_code}",
  ],
  camera_snapshot: ["grab a snapshot from {device_id}", "take a camera snapshot with {device_id}"],
  share_snapshot: ["send {image_url} to {to}", "share {image_url} with {to} by e-mail"],
  find_scene: ["look up the lighting scene for the {room}", "get the default lighting scene of the {room}"],
  activate_scene: ["turn on {scene_id}", "switch to {scene_id}"],
  firmware_check: ["check for new firmware available for {device_id}", "see which firmware is available for {device_id}"],
  update_firmware: ["put {latest_version} on {device_id}", "update {device_id} to {latest_version}"],
  // General
  web_search: ["look up {query} on the web", "run a web search for {query}"],
  news_search: ["look for a news article about {query}", "find the top news story on {query}"],
  fetch_page: ["read the main text of the page at {url}", "open {url} and read its main text"],
  wikipedia_summary: ["find the encyclopedia entry on {query}", "get an encyclopedia summary of {query}"],
  summarize_text: ["summarise {text} in two sentences", "boil {text} down to a two-sentence summary"],
  expand_headline: ["fetch the lead paragraph behind {title}", "pull up the story behind {title}"],
  translate_text: ["put {text} into {target_language}", "have {text} translated into {target_language}"],
  shorten_url: ["make a short link for {url}", "create a short URL for {url}"],
  qr_code: ["generate a QR code for {short_url}", "create a QR code image for {short_url}"],
  text_message: ["send {translated} by text to {phone}", "SMS {translated} to {phone}"],
  post_social: ['share {short_url} on social media with the caption "{caption}"', 'publish {short_url} with the caption "{caption}"'],
  email_translation: ["send {translated} by e-mail to {to}", "e-mail {to} with {translated}"],
  email_summary: ["send {summary} by e-mail to {to}", "e-mail {to} with {summary}"],
  save_note: ["store {text} as a note", "keep {text} in my notes"],
  create_ticket: ["file a support ticket describing {summary}", "raise a ticket with {summary}"],
  text_to_speech: ["make an audio version of {translated}", "convert {translated} to speech"],
  city_zone: ["look up the time zone of {city}", "check which time zone {city} uses"],
  local_morning: ["find the next 8 am in {timezone}", "get the next local morning in {timezone}"],
  set_reminder: ['add a personal reminder at {at} to "{note}"', 'create a reminder for {at} saying "{note}"'],
  next_holiday: ["look up the next public holiday in {country}", "check when the next public holiday is in {country}"],
  out_of_office: ['turn on an out-of-office reply for {date} saying "{note}"', 'set up an auto-reply for {date} with "{note}"'],
};

const placeholders = (phrase: string): string[] => [...phrase.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);

let checked: Map<string, readonly string[]> | undefined;

/** All phrasings of a capability (its table phrase first), validated once against the capability tables. */
export function phrasingsOf(capId: string): readonly string[] {
  if (!checked) {
    const m = new Map<string, readonly string[]>();
    for (const c of corpus().caps.values()) {
      const alts = ALTERNATIVES[c.id] ?? [];
      const want = placeholders(c.phrase);
      for (const a of alts) {
        const got = placeholders(a);
        // Same placeholders; same relative order for parameters sharing a type (their literals are told apart by order).
        const sameSet = got.length === want.length && want.every((p) => got.includes(p));
        const orderOf = (ps: string[], type: string) => ps.filter((p) => c.params[p] === type).join();
        const typed = (ps: string[]) => Object.values(c.params).every((t) => orderOf(ps, t) === orderOf(want, t));
        if (!sameSet || !typed(got)) throw new Error(`toolmaze phrasings: "${a}" must use the placeholders of "${c.phrase}" (${c.id})`);
      }
      m.set(c.id, [c.phrase, ...alts]);
    }
    for (const id of Object.keys(ALTERNATIVES)) if (!m.has(id)) throw new Error(`toolmaze phrasings: unknown capability ${id}`);
    checked = m;
  }
  return checked.get(capId) ?? [];
}
