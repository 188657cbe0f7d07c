#!/usr/bin/env python3
"""Generate a synthetic OPUS OpenSubtitles release with a second, independent shape.

The benchmark runs the Opusparcus ranking on two generators, ``generate_opensubtitles.py`` and
this one, written separately so that what one generator's assumptions hide, the other shows.
Only the Moses form, as OPUS ships it: ``OUT/moses/<a>-<b>.txt.zip`` (``a < b``) holding
``OpenSubtitles.<a>-<b>.<a>``, ``.<b>`` (one untokenised sentence a line; empty for an empty
side; two sentences joined by a space for a 2-sentence side), ``.ids``
(``<a>/<year>/<imdb>/<file>.xml.gz TAB <b doc> TAB <a ids> TAB <b ids>``) and ``README`` and
``LICENSE``; and ``OUT/generated.json``, the summary (the fields of generate_opensubtitles.py's
summary, plus link kinds and documents).

Shape. Movies from 1920-2023, more recent ones more frequent. Every movie has a script of
300-1,500 lines, and 1-4 subtitle files (versions) per language: versions render the same
script with their own phrasing choices, line drops and sentence-id gaps; a target document is
the same in every bitext. A bitext aligns 1-4 document pairs per movie, each with 300-1,500
links in script order: ~93.6 % 1:1, the rest 2:1, 1:2, 1:0 and 0:1 (an empty side); 2.5 % of
1:1 links are shifted by one line (misaligned); a few sides are empty or a space. A script line
is a head reply (11 %: 44 hand-written concepts, "Yes." / "Ja." / "Да." / "Kyllä." with their
variants, exponentially decaying frequency), a common sentence (20 %: a pool of 200,000 with
log-normal frequencies) or a sentence of its own (69 %: 1-25 words drawn from per-language word
lists, hand-written frequent words then syllable-built ones, with commas and punctuation; a
position's word has the same frequency rank in every language, a rough translation).
Phrasing variants swap contractions and synonyms ("don't" / "do not", "kid" / "child"), add
interjections, change final punctuation, dashes, capitals and "..." continuations; several
English phrasings of one meaning align to the same pivot sentence across movies and versions.

Everything derives from counter-based hashes of (seed, language, movie, version, line) and
per-block generators, so the output depends only on the languages, ``--links-per-pivot`` and
``--seed`` (byte-identical zips; not on ``--jobs``). Lines are rendered in numpy batches of
document pairs and streamed into the zip members; each bitext is one worker process.
"""

from __future__ import annotations

import argparse
import itertools
import json
import multiprocessing
import os
import time
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

CORPUS = "OpenSubtitles"
RELEASE_DATE = (2018, 1, 1, 0, 0, 0)
COMPRESS_LEVEL = 1
CHUNK_LINKS = 500_000
MOVIE_BLOCK = 1024
FIRST_YEAR, LAST_YEAR = 1920, 2023
MIN_LINKS, MAX_LINKS = 300, 1500
MAX_WORDS = 25
MAX_ID = 1 << 14
COMMON_POOL = 200_000
HEAD_SHARE, COMMON_SHARE = 0.11, 0.20
MISALIGNED = 0.025
LOOSE_HEAD = 0.05
FREQUENT = 500
MASK64 = (1 << 64) - 1
GOLDEN = np.uint64(0x9E3779B97F4A7C15)

# Meaning classes (the top two bits of a meaning key).
HEAD, COMMON, TAIL, SHORT = range(4)
PAYLOAD = np.uint64((1 << 62) - 1)
# Line kinds in a document pair, target:pivot; DROP: the line is not aligned in this pair.
DROP, K21, K12, K10, K01, K11 = range(6)
KIND_CDF = np.cumsum([0.02, 0.015, 0.02, 0.012, 0.016])
# Rendering styles of one sentence.
NORMAL, CONTINUED, SHOUTED, EMPTY, SPACE = range(5)
# Table layout: prefixes, then interjections (plain, dashed), then end pieces.
PRE_NONE, PRE_DASH, PRE_CONT, PRE_SPACE, PRE_INTERJ = range(5)
PUNCTS = (".", "?", "!", "...", "", " ?", " !", "?!")
DOT, QUESTION, EXCLAIM, ELLIPSIS, BARE, SPACED_Q, SPACED_EXCL, QEXCL = range(8)
PUNCT_CDF = np.cumsum([0.56, 0.26, 0.09, 0.06])
FIRST, INNER, LOWFIRST, UPFIRST, UPINNER = range(5)
LENGTH_PROBS = {
    COMMON: np.array([12, 20, 20, 15, 10, 8, 6, 4, 2, 1.5, 1, 0.5]),
    TAIL: np.arange(1, MAX_WORDS + 1) ** 1.2 * np.exp(-np.arange(1, MAX_WORDS + 1) / 3.2),
    SHORT: np.array([30, 35, 25, 10]),
}
LENGTH_CDF = {c: np.cumsum(p[:-1]) / p.sum() for c, p in LENGTH_PROBS.items()}
YEARS = np.arange(FIRST_YEAR, LAST_YEAR + 1)
YEAR_CDF = np.cumsum(np.exp((YEARS - FIRST_YEAR) / 20.0))[:-1] / np.exp(
    (YEARS - FIRST_YEAR) / 20.0).sum()
PAIRS_PER_MOVIE = np.array([0.62, 0.24, 0.10, 0.04])
GAP_CDF = np.cumsum([0.9, 0.05, 0.03, 0.01])


@dataclass(frozen=True)
class LangData:
    """Hand-written resources of one language."""

    words: str
    pairs: tuple[tuple[str, str], ...]
    syllables: str
    interjections: tuple[str, ...]
    size: int
    ratio: float
    versions: tuple[float, ...]
    coverage: float
    nouns: bool = False
    spaced: bool = False


LANGS = {
    "en": LangData(
        words="""you I the to a it that what is and of me in we this he don't no have know not
        be your do on for it's I'm my just was can with are get all here there like go so they
        right if what's come him she okay can't at but out now how got want about up one think
        well her see let's why tell did who oh gonna take look from yeah good could or an will
        man would there's that's them time back I'll going had when need where then sure were
        something been really never make say hey his mean us more our thank some sorry because
        very little anything over again maybe way into nothing too does doing off give still
        call any help talk much thing these find love those as home please should night only
        two first kind people work let than didn't father mother wait money through sir always
        life leave old even before great day other stop listen place nice after around big last
        long new car house girl guy kid woman boy friend nobody everybody somebody everything
        tonight tomorrow today quick start wanna kinda mom dad you're we're won't isn't I've
        they're""",
        pairs=(("don't", "do not"), ("it's", "it is"), ("I'm", "I am"), ("can't", "cannot"),
               ("what's", "what is"), ("that's", "that is"), ("let's", "let us"),
               ("gonna", "going to"), ("I'll", "I will"), ("didn't", "did not"),
               ("there's", "there is"), ("you're", "you are"), ("we're", "we are"),
               ("won't", "will not"), ("isn't", "is not"), ("okay", "all right"),
               ("yeah", "yes"), ("maybe", "perhaps"), ("kid", "child"), ("big", "large"),
               ("little", "small"), ("quick", "fast"), ("start", "begin"),
               ("nobody", "no one"), ("everybody", "everyone"), ("somebody", "someone"),
               ("wanna", "want to"), ("kinda", "kind of"), ("mom", "mother"),
               ("dad", "father"), ("I've", "I have"), ("they're", "they are"), ("guy", "man")),
        syllables="""ba be bi bo ca co da de di do fa fe ga ge ha he hi ja ka la le li lo ma me
        mi mo na ne ni no pa pe pi po ra re ri ro sa se si so ta te ti to va ve wa we ya ster
        ton ing er ly ment ness son ford well man ley th sh ch ck""",
        interjections=("Well,", "Oh,", "So", "Look,", "Hey,", "But", "And", "Now,"),
        size=40_000, ratio=1.0, versions=(0.45, 0.30, 0.15, 0.10), coverage=0.9),
    "de": LangData(
        words="""ich du nicht das ist die der und sie es was wir ja zu ein in mit mir den dich
        hier so mich auf er haben sein wie von nein sind dir war hat noch mal nur aber eine für
        an gut jetzt da wenn wo schon kann doch bin alles weiß los habe machen will warum wer
        gehen muss komm bitte danke sehr immer nichts etwas über schön müssen können Haus Mann
        Frau Zeit Tür Mädchen Straße Geld Vater Mutter Kind Auto Leben Nacht Tag Junge Freund
        Gott Hände Stadt Weg Angst später heute morgen gestern vielleicht natürlich wirklich
        zurück genau okay weißt gesagt""",
        pairs=(("nicht", "nich"), ("vielleicht", "womöglich"), ("okay", "in Ordnung"),
               ("Auto", "Wagen"), ("Junge", "Bursche"), ("schön", "hübsch"), ("jetzt", "nun"),
               ("habe", "hab"), ("sehr", "ganz"), ("Geld", "Kohle")),
        syllables="""ach be ber de der ein en er ge hal ich keit lich ma mer nach schaf schen
        stein tra über ung ver wä zu bür kö mö haus feld burg tz aß sch pf ei au äu ie""",
        interjections=("Nun,", "Oh,", "Also", "Hör mal,", "Hey,", "Aber", "Und", "Jetzt"),
        size=50_000, ratio=1.0, versions=(0.6, 0.25, 0.1, 0.05), coverage=0.62, nouns=True),
    "fi": LangData(
        words="""minä sinä hän me te he se ei en et on ole oli olen olet mitä missä miksi mikä
        kuka tämä tuo nyt täällä siellä kyllä joo hyvä kiitos älä mennään tule anna voi pitää
        täytyy haluan tiedän tiedä sitten vielä jo aina koskaan kaikki mitään jotain isä äiti
        tyttö poika mies nainen talo auto yö päivä aika rahaa työ ystävä hyvää kaunis
        nopeasti huomenna tänään eilen ehkä tietysti oikeasti takaisin juuri ihan niin kun
        että jos mutta vain myös""",
        pairs=(("minä", "mä"), ("sinä", "sä"), ("olen", "oon"), ("ehkä", "kenties"),
               ("tule", "tuu"), ("mennään", "lähdetään"), ("auto", "kärry"),
               ("kaunis", "upea"), ("täällä", "tääl"), ("rahaa", "massia")),
        syllables="""ka ko ku la lä le li lo ma mä mi mu na nä ne no pa pi po ra ri ro sa sä se
        si ta tä te ti to tu va vä ve vi yö öy aa ee ii kk ll ss tt nen sta ssa lla kin ja jä
        hy hä""",
        interjections=("No,", "Voi,", "Eli", "Kuule,", "Hei,", "Mutta", "Ja", "Nyt"),
        size=60_000, ratio=0.8, versions=(0.6, 0.25, 0.1, 0.05), coverage=0.45),
    "fr": LangData(
        words="""je tu il elle nous vous ils on ne pas c'est j'ai est le la les un une de du des
        et à en que qui ça oui non moi toi lui mais ou où quoi pourquoi comment bien très tout
        rien sais fais va vais suis es sont être avoir faire aller voir dire peut veux dois là
        ici maintenant déjà encore toujours jamais père mère fille garçon homme femme maison
        voiture nuit jour temps argent travail ami vie monde merci s'il plaît d'accord
        peut-être vraiment demain aujourd'hui hier vite beaucoup trop après avant qu'est-ce
        été français fenêtre""",
        pairs=(("voiture", "bagnole"), ("argent", "fric"), ("travail", "boulot"),
               ("peut-être", "sans doute"), ("homme", "type"), ("beaucoup", "plein"),
               ("ça", "cela"), ("vite", "rapidement"), ("maison", "baraque")),
        syllables="""ai au beau ça ce ché cou dé è é eau elle en fa gé ion la lé ment mer ne ou
        pè que ré rie sé tion tré va vé ê oi eur ette ille gn ch""",
        interjections=("Eh bien,", "Oh,", "Alors", "Écoute,", "Hé,", "Mais", "Et",
                       "Maintenant,"),
        size=45_000, ratio=1.12, versions=(0.6, 0.25, 0.1, 0.05), coverage=0.70, spaced=True),
    "ru": LangData(
        words="""я ты он она мы вы они не что это как где куда да нет так вот все всё был была
        есть знаю хорошо здесь там сейчас почему пожалуйста спасибо иди давай быстро дом время
        ничего ну тебя меня его её нас вас мне тебе кто может надо хочу только уже ещё тоже
        очень просто когда если но и а в на с по к от за для отец мать девушка парень мужчина
        женщина машина ночь день деньги работа друг жизнь мир завтра сегодня вчера конечно
        правда нужно можно сказал думаю""",
        pairs=(("ещё", "еще"), ("машина", "тачка"), ("деньги", "бабки"),
               ("быстро", "скорее"), ("хорошо", "ладно"), ("девушка", "девчонка"),
               ("парень", "пацан"), ("отец", "папа"), ("мать", "мама"), ("сейчас", "щас")),
        syllables="""ба ва ве ви го да де дро жи за зе ка ко ла ле ли ль ма ме ми на не но ов ой
        по пре ра ре ро са се ст та те то ть ун ус чи ша ще ый ю я ёт ых ец ск""",
        interjections=("Ну,", "О,", "Так", "Слушай,", "Эй,", "Но", "И", "Теперь"),
        size=55_000, ratio=0.85, versions=(0.6, 0.25, 0.1, 0.05), coverage=0.52),
    "sv": LangData(
        words="""jag du han hon vi ni de det den inte är var vad här där så också någon något
        måste kanske älskar ja nej och att en ett med på för om men till av har kan vill ska
        bara nu då mig dig honom henne oss er hem bra tack snälla förlåt kom gå se hör vet tror
        säger aldrig alltid allt ingenting pappa mamma flicka pojke man kvinna hus bil natt dag
        tid pengar jobb vän liv värld imorgon idag igår verkligen tillbaka precis okej hjälp""",
        pairs=(("mig", "mej"), ("dig", "dej"), ("kanske", "möjligen"), ("pengar", "stålar"),
               ("bil", "kärra"), ("flicka", "tjej"), ("pojke", "kille"), ("okej", "ok"),
               ("något", "nåt"), ("någon", "nån")),
        syllables="""all and ber bo de dä en er fö gå hå hö ig ing ka kä la lä lig ma mö na ning
        or på rä sk sjö sta stj så te tt ur vä å ö sj hj""",
        interjections=("Tja,", "Åh,", "Så", "Hör här,", "Hej,", "Men", "Och", "Nu"),
        size=45_000, ratio=0.95, versions=(0.6, 0.25, 0.1, 0.05), coverage=0.50),
}

# Frequent short replies, most frequent first: concept -> language -> its variants.
REPLY_TEXT = """
en Yes.|Yeah.|Yes!|Yep.|Yeah, yeah.
de Ja.|Ja!|Ja, ja.
fi Kyllä.|Joo.|Niin.
fr Oui.|Ouais.|Oui !
ru Да.|Да!|Ага.
sv Ja.|Japp.|Jo.

en No.|No!|Nope.|No, no.
de Nein.|Nein!|Nee.
fi Ei.|Ei!|Eikä.
fr Non.|Non !|Non, non.
ru Нет.|Нет!|Нет, нет.
sv Nej.|Nej!|Nä.

en Okay.|OK.|All right.|Alright.|Okay!
de Okay.|Gut.|In Ordnung.|Na gut.
fi Okei.|Selvä.|Hyvä on.
fr D'accord.|OK.|Bon.
ru Хорошо.|Ладно.|Ок.
sv Okej.|Okej!|Visst.

en What?|What?!|Huh?|What's that?
de Was?|Wie bitte?
fi Mitä?|Häh?
fr Quoi ?|Comment ?|Hein ?
ru Что?|Что?!|А?
sv Vad?|Va?

en Thank you.|Thanks.|Thank you!|Thanks a lot.
de Danke.|Danke schön.|Vielen Dank.
fi Kiitos.|Kiitti.|Kiitos paljon.
fr Merci.|Merci beaucoup.|Merci !
ru Спасибо.|Спасибо!|Большое спасибо.
sv Tack.|Tack så mycket.|Tack!

en Hey.|Hey!|Hi.|Hello.
de Hey.|Hallo.|Hi.
fi Hei.|Moi.|Terve.
fr Salut.|Hé !|Bonjour.
ru Привет.|Эй!|Здравствуйте.
sv Hej.|Hallå.|Hej!

en I'm sorry.|Sorry.|I am sorry.|Sorry!
de Tut mir leid.|Entschuldigung.|Verzeihung.
fi Anteeksi.|Olen pahoillani.
fr Désolé.|Pardon.|Je suis désolé.
ru Прости.|Извините.|Мне жаль.
sv Förlåt.|Ursäkta.|Jag är ledsen.

en Come on.|Come on!|C'mon.
de Komm schon.|Los!|Komm.
fi Tule.|Älä viitsi.
fr Allez.|Viens.|Allez !
ru Давай.|Давай!
sv Kom igen.|Kom.|Kom igen!

en I don't know.|I do not know.|I dunno.|Don't know.
de Ich weiß nicht.|Weiß nicht.|Keine Ahnung.
fi En tiedä.|En mä tiedä.
fr Je ne sais pas.|Je sais pas.|Aucune idée.
ru Я не знаю.|Не знаю.
sv Jag vet inte.|Vet inte.|Ingen aning.

en Oh.|Oh!|Ah.|Oh, God.
de Oh.|Ach.|Oh Gott.
fi Voi.|Ai.|Oi.
fr Oh.|Ah.|Oh mon Dieu.
ru О.|Ох.|Боже.
sv Åh.|Oj.|Herregud.

en Why?|Why?!|But why?
de Warum?|Wieso?|Weshalb?
fi Miksi?|Miksi ihmeessä?|Miks?
fr Pourquoi ?|Mais pourquoi ?
ru Почему?|Зачем?|Почему?!
sv Varför?|Hurså?

en Wait.|Wait!|Wait a minute.|Hold on.
de Warte.|Moment.|Warten Sie!
fi Odota.|Hetkinen.|Odota!
fr Attends.|Attendez !|Une seconde.
ru Подожди.|Стой!|Погоди.
sv Vänta.|Vänta!|Ett ögonblick.

en Good.|Great.|Fine.|Very good.
de Gut.|Sehr gut.|Prima.
fi Hyvä.|Hienoa.
fr Bien.|Très bien.|Parfait.
ru Хорошо.|Отлично.|Прекрасно.
sv Bra.|Utmärkt.|Fint.

en What are you doing?|What're you doing?|What are you doing here?
de Was machst du?|Was tust du da?
fi Mitä sinä teet?|Mitä sä teet?
fr Qu'est-ce que tu fais ?|Que fais-tu ?|Tu fais quoi ?
ru Что ты делаешь?|Ты что делаешь?
sv Vad gör du?|Vad håller du på med?

en Where are you going?|Where you going?|Where're you going?
de Wohin gehst du?|Wo gehst du hin?
fi Minne olet menossa?|Mihin sä meet?
fr Où vas-tu ?|Tu vas où ?
ru Куда ты идёшь?|Ты куда?
sv Vart ska du?|Vart går du?

en Let's go.|Let's go!|Let us go.|Go!
de Gehen wir.|Los geht's.|Los!
fi Mennään.|Lähdetään.
fr Allons-y.|On y va.|Allons-y !
ru Пошли.|Идём.|Поехали!
sv Nu går vi.|Vi går.|Kom så går vi.

en Really?|Really?!|Are you serious?|Seriously?
de Wirklich?|Echt?|Im Ernst?
fi Oikeasti?|Ihanko totta?|Tosiaan?
fr Vraiment ?|C'est vrai ?|Sérieux ?
ru Правда?|Серьёзно?|Неужели?
sv Verkligen?|Seriöst?|Jaså?

en Help!|Help me!|Somebody help!
de Hilfe!|Helft mir!
fi Apua!|Auttakaa!
fr Au secours !|À l'aide !
ru Помогите!|На помощь!
sv Hjälp!|Hjälp mig!

en Please.|Please!|Please, please.
de Bitte.|Bitte!|Bitte, bitte.
fi Ole kiltti.|Kiltti.|Pyydän.
fr S'il te plaît.|S'il vous plaît.|Je t'en prie.
ru Пожалуйста.|Прошу.|Пожалуйста!
sv Snälla.|Snälla du.|Var så snäll.

en Mm-hmm.|Hmm.|Uh-huh.|Mm.
de Mhm.|Hm.
fi Mm.|Hmm.|Aha.
fr Hum.|Mmh.|Ah bon.
ru Ага.|Хм.|Угу.
sv Mm.|Hmm.|Mhm.

en Right.|That's right.|Exactly.|Right!
de Richtig.|Genau.|Stimmt.
fi Aivan.|Juuri niin.|Totta.
fr C'est ça.|Exactement.|C'est vrai.
ru Верно.|Точно.|Именно.
sv Just det.|Precis.|Det stämmer.

en Go.|Go!|Go on.|Go, go, go!
de Geh.|Los!|Geh!|Lauf!
fi Mene.|Mene!|Juokse!
fr Va.|Vas-y !|Allez, allez !
ru Иди.|Вперёд!|Беги!
sv Gå.|Spring!|Stick!

en What happened?|What's happened?|What's going on?
de Was ist passiert?|Was ist los?
fi Mitä tapahtui?|Mitä on tekeillä?
fr Que s'est-il passé ?|Qu'est-ce qui se passe ?
ru Что случилось?|Что происходит?
sv Vad hände?|Vad är det som händer?

en I love you.|I love you!|Love you.
de Ich liebe dich.|Ich liebe dich!
fi Rakastan sinua.|Mä rakastan sua.
fr Je t'aime.|Je t'aime !
ru Я люблю тебя.|Люблю тебя.
sv Jag älskar dig.|Älskar dig.

en Who are you?|Who're you?|Who the hell are you?
de Wer bist du?|Wer sind Sie?
fi Kuka sinä olet?|Kuka te olette?
fr Qui êtes-vous ?|T'es qui ?|Qui es-tu ?
ru Кто ты?|Кто вы?|Ты кто такой?
sv Vem är du?|Vem är ni?

en Sir.|Yes, sir.|Sir?
de Sir.|Jawohl, Sir.|Ja, Sir.
fi Sir.|Kyllä, sir.
fr Monsieur.|Oui, monsieur.
ru Сэр.|Да, сэр.
sv Sir.|Ja, sir.

en Shut up!|Shut up.|Be quiet!|Quiet!
de Halt die Klappe!|Ruhe!|Sei still!
fi Turpa kiinni!|Hiljaa!|Ole hiljaa.
fr Tais-toi !|Silence !|Ferme-la !
ru Заткнись!|Тихо!|Молчать!
sv Håll käften!|Tyst!|Var tyst.

en I know.|I know!|I know that.
de Ich weiß.|Weiß ich.
fi Tiedän.|Mä tiedän.
fr Je sais.|Je le sais.
ru Я знаю.|Знаю.
sv Jag vet.|Jag vet det.

en What's wrong?|What is it?|What's the matter?
de Was ist los?|Was hast du?
fi Mikä hätänä?|Mikä on?
fr Qu'y a-t-il ?|Qu'est-ce qu'il y a ?
ru Что с тобой?|В чём дело?
sv Vad är det?|Vad är det för fel?

en I'm fine.|I'm okay.|I am fine.
de Mir geht's gut.|Alles okay.
fi Olen kunnossa.|Mä oon ok.
fr Ça va.|Je vais bien.
ru Я в порядке.|Всё нормально.
sv Jag mår bra.|Det är bra.

en Come here.|Come here!|Get over here.
de Komm her.|Komm her!
fi Tule tänne.|Tuu tänne!
fr Viens ici.|Viens là !|Approche.
ru Иди сюда.|Иди сюда!
sv Kom hit.|Kom hit!

en Good night.|Night.|Goodnight.
de Gute Nacht.
fi Hyvää yötä.|Öitä.
fr Bonne nuit.
ru Спокойной ночи.
sv God natt.|Godnatt.

en Bye.|Goodbye.|See you.|Bye-bye.
de Tschüss.|Auf Wiedersehen.|Bis dann.
fi Hei hei.|Näkemiin.|Moikka.
fr Au revoir.|Salut.|À plus.
ru Пока.|До свидания.
sv Hej då.|Adjö.|Vi ses.

en Of course.|Sure.|Of course!|Certainly.
de Natürlich.|Klar.|Sicher.
fi Tietenkin.|Tottakai.|Toki.
fr Bien sûr.|Évidemment.|Bien sûr !
ru Конечно.|Разумеется.|Конечно!
sv Självklart.|Visst.|Naturligtvis.

en What do you want?|What d'you want?|What do you want from me?
de Was willst du?|Was wollen Sie?
fi Mitä haluat?|Mitä sä haluut?
fr Que veux-tu ?|Qu'est-ce que vous voulez ?
ru Чего ты хочешь?|Что вам нужно?
sv Vad vill du?|Vad vill ni?

en Hurry up!|Hurry!|Quickly!|Hurry up.
de Beeil dich!|Schnell!
fi Pidä kiirettä!|Nopeasti!
fr Dépêche-toi !|Vite !|Dépêchez-vous !
ru Быстрее!|Скорее!|Живей!
sv Skynda dig!|Fort!|Skynda på!

en Look.|Look!|Listen.|Look, listen.
de Hör zu.|Schau.|Sieh mal.
fi Katso.|Kuuntele.|Kato!
fr Écoute.|Regarde.|Écoutez.
ru Смотри.|Слушай.|Послушай.
sv Titta.|Lyssna.|Hör här.

en Damn it!|Damn.|Shit!|Dammit.
de Verdammt!|Scheiße!|Mist.
fi Hitto!|Perkele!|Voi paska.
fr Merde !|Bon sang !|Zut.
ru Чёрт!|Проклятье!|Чёрт возьми!
sv Fan!|Jävlar!|Fan också.

en Me?|Who, me?|Me.
de Ich?|Wer, ich?
fi Minäkö?|Mä?
fr Moi ?|Qui, moi ?
ru Я?|Кто, я?
sv Jag?|Vem, jag?

en Dad.|Dad!|Father.
de Papa.|Vater!
fi Isä.|Isi!
fr Papa.|Papa !
ru Папа.|Отец!
sv Pappa.|Pappa!

en Mom.|Mom!|Mum.|Mother.
de Mama.|Mutter!
fi Äiti.|Äiti!
fr Maman.|Maman !
ru Мама.|Мама!
sv Mamma.|Mamma!

en Nothing.|Nothing!|It's nothing.
de Nichts.|Gar nichts.
fi Ei mitään.|Ei mitään!
fr Rien.|Rien du tout.
ru Ничего.|Ничего!
sv Ingenting.|Inget.

en Where?|Where?!|Where to?
de Wo?|Wohin?
fi Missä?|Mihin?
fr Où ?|Où ça ?
ru Где?|Куда?
sv Var?|Vart?

en Hello?|Hello!|Anybody home?
de Hallo?|Hallo!
fi Haloo?|Onko ketään?
fr Allô ?|Il y a quelqu'un ?
ru Алло?|Есть кто-нибудь?
sv Hallå?|Är det någon här?
"""
REPLIES = tuple({code: tuple(text.split("|")) for code, text in
              (line.split(" ", 1) for line in block.splitlines())}
             for block in REPLY_TEXT.strip().split("\n\n"))
REPLY_WEIGHTS = np.exp(-np.arange(len(REPLIES)) / 10.0)
REPLY_CDF = np.cumsum(REPLY_WEIGHTS)[:-1] / REPLY_WEIGHTS.sum()


# ---------------------------------------------------------------------------- hashing


def salt(*parts: int | str) -> np.uint64:
    """A 64-bit key from a seed and names (Python integers: no numpy overflow warnings)."""
    h = 0x243F6A8885A308D3
    for part in parts:
        value = zlib.crc32(part.encode()) if isinstance(part, str) else part
        h = (h ^ value) * 0xBF58476D1CE4E5B9 & MASK64
        h ^= h >> 29
    return np.uint64(h)


def mix(x: np.ndarray) -> np.ndarray:
    """The splitmix64 finaliser, elementwise on uint64 (wrapping)."""
    x = x ^ (x >> np.uint64(30))
    x = x * np.uint64(0xBF58476D1CE4E5B9)
    x = x ^ (x >> np.uint64(27))
    x = x * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def hashed(base: np.uint64, packed: np.ndarray) -> np.ndarray:
    """Independent 64-bit hashes of integer keys under a salt."""
    return mix(packed.astype(np.uint64) * GOLDEN + base)


def unit(h: np.ndarray) -> np.ndarray:
    """Uniform [0, 1) from the top 53 bits of a hash."""
    return (h >> np.uint64(11)).astype(np.float64) * 2.0**-53


def field(h: np.ndarray, shift: int, width: int) -> np.ndarray:
    """Bits ``shift .. shift + width`` of a hash, as int64."""
    return ((h >> np.uint64(shift)) & np.uint64((1 << width) - 1)).astype(np.int64)


def fraction(h: np.ndarray, shift: int, width: int = 24) -> np.ndarray:
    """Uniform [0, 1) from bits ``shift .. shift + width`` of a hash."""
    return field(h, shift, width) / float(1 << width)


def pack(movie: np.ndarray, version: np.ndarray, line: np.ndarray) -> np.ndarray:
    """One integer key per (movie, version, line)."""
    return (movie.astype(np.int64) << 24) | (version.astype(np.int64) << 16) | line


# ---------------------------------------------------------------------------- languages


@dataclass(frozen=True)
class Language:
    """The pieces a language's lines are made of, and how to index them."""

    code: str
    salt: np.uint64
    table: np.ndarray
    words: int
    word_base: int
    end_base: int
    head_base: int
    alt: np.ndarray
    head_first: np.ndarray
    head_count: np.ndarray
    ratio: float
    spaced: bool


def synthetic_words(data: LangData, count: int, taken: set[str],
                    rng: np.random.Generator) -> list[str]:
    """``count`` distinct syllable-built words not in ``taken``, shorter ones first (the
    frequent ranks)."""
    syllables = np.array(data.syllables.split(), dtype=object)
    found: dict[str, None] = {}
    while len(found) < count:
        n = rng.choice(4, size=count, p=[0.05, 0.3, 0.4, 0.25]) + 1
        parts = rng.integers(0, len(syllables), size=(count, 4))
        nouns = rng.random(count) < (0.3 if data.nouns else 0.0)
        for size, row, noun in zip(n.tolist(), syllables[parts].tolist(), nouns.tolist()):
            word = "".join(row[:size])
            word = word[0].upper() + word[1:] if noun else word
            if len(word) > 1 and word not in taken:
                found[word] = None
    return sorted(list(found)[:count], key=len)


def vocabulary(code: str, seed: int) -> tuple[list[str], np.ndarray]:
    """The words by frequency rank, and each rank's alternative form (itself if none)."""
    data = LANGS[code]
    words = list(dict.fromkeys(data.words.split() + [w for pair in data.pairs for w in pair]))
    rng = np.random.default_rng([seed, zlib.crc32(code.encode())])
    hand = len(words)
    words += synthetic_words(data, data.size - hand, set(words), rng)
    alt = np.arange(len(words))
    rank = {word: i for i, word in enumerate(words)}
    for a, b in data.pairs:
        alt[rank[a]], alt[rank[b]] = rank[b], rank[a]
    even = np.arange(hand + hand % 2, len(words) - 1, 2)
    swapped = even[rng.random(len(even)) < 0.12]
    alt[swapped], alt[swapped + 1] = swapped + 1, swapped
    return words, alt


def word_forms(word: str) -> tuple[str, str, str, str, str]:
    """FIRST, INNER, LOWFIRST, UPFIRST, UPINNER forms of a word."""
    return word[0].upper() + word[1:], " " + word, word, word.upper(), " " + word.upper()


def build_language(code: str, seed: int) -> Language:
    """A language's piece table: prefixes, end pieces, head replies, word forms."""
    data = LANGS[code]
    words, alt = vocabulary(code, seed)
    heads = [concept[code] for concept in REPLIES]
    pieces = ["", "- ", "...", " "]
    for interjection in data.interjections:
        pieces += [interjection, "- " + interjection]
    end_base = len(pieces)
    pieces += [p + term for p in PUNCTS for term in ("\n", " ")]
    head_base = len(pieces)
    pieces += [s for variants in heads for text in variants for s in (text, text.upper())]
    word_base = len(pieces)
    forms = [word_forms(w) for w in words]
    for form in range(5):
        for comma in ("", ","):
            pieces += [f[form] + comma for f in forms]
    counts = np.array([len(v) for v in heads])
    return Language(code, salt(seed, code), np.array(pieces, dtype=object), len(words),
                    word_base, end_base, head_base, alt, np.cumsum(counts) - counts, counts,
                    data.ratio, data.spaced)


# ---------------------------------------------------------------------------- movies and plan


@dataclass(frozen=True)
class Plan:
    """The document pairs of one bitext in release order, with their link counts."""

    movie: np.ndarray
    year: np.ndarray
    target_version: np.ndarray
    pivot_version: np.ndarray
    links: np.ndarray
    prefix: np.ndarray


def movie_attributes(seed: int, movies: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Year, IMDb id and script length of movies (shared by every bitext)."""
    h = hashed(salt(seed, "movie"), movies)
    year = YEARS[np.searchsorted(YEAR_CDF, unit(h), side="right")]
    imdb = 10_000 + field(mix(h), 0, 40) % 9_990_000
    normal = (fraction(h, 0) + fraction(h, 24) + fraction(mix(h), 40) - 1.5) * 2.0
    lines = np.clip(np.round(np.exp(6.5 + 0.38 * normal)), MIN_LINKS, MAX_LINKS).astype(np.int64)
    return year, imdb, lines


def versions(seed: int, code: str, movies: np.ndarray) -> np.ndarray:
    """Number of subtitle files of each movie in a language."""
    cdf = np.cumsum(LANGS[code].versions)[:-1]
    return np.searchsorted(cdf, unit(hashed(salt(seed, code, "versions"), movies)),
                           side="right") + 1


def file_ids(seed: int, code: str, movie: np.ndarray, version: np.ndarray) -> np.ndarray:
    """OpenSubtitles file ids, distinct between the versions of a movie."""
    base = field(hashed(salt(seed, code, "file"), movie), 0, 40) % 8_999_999
    return 1_000_000 + (base + version * 1_000_003) % 8_999_999


def movie_pairs(rng: np.random.Generator, targets: int, pivots: int) -> list[tuple[int, int]]:
    """The (target version, pivot version) document pairs of one movie."""
    wanted = min(rng.choice(len(PAIRS_PER_MOVIE), p=PAIRS_PER_MOVIE) + 1, targets * pivots)
    others = [(t, p) for t in range(targets) for p in range(pivots) if t or p]
    order = rng.permutation(len(others))[: wanted - 1]
    return [(0, 0)] + [others[i] for i in order]


def block_pairs(seed: int, target: str, pivot: str, block: int) -> np.ndarray:
    """Document pairs of one block of movies: rows (movie, target v, pivot v, links)."""
    movies = np.arange(block * MOVIE_BLOCK, (block + 1) * MOVIE_BLOCK)
    _, _, lines = movie_attributes(seed, movies)
    covered = unit(hashed(salt(seed, pivot, "cover"), movies)) < LANGS[pivot].coverage
    counts = zip(versions(seed, target, movies).tolist(), versions(seed, pivot, movies).tolist())
    rng = np.random.default_rng([seed, zlib.crc32(pivot.encode()), block])
    rows = []
    for movie, length, inside, (nt, np_) in zip(movies.tolist(), lines.tolist(),
                                                covered.tolist(), counts):
        if not inside:
            continue
        for t, p in movie_pairs(rng, nt, np_):
            links = min(max(round(length * rng.uniform(0.86, 1.04)), MIN_LINKS), MAX_LINKS)
            rows.append((movie, t, p, links))
    return np.array(rows, dtype=np.int64).reshape(-1, 4)


def plan_bitext(seed: int, target: str, pivot: str, links: int) -> Plan:
    """Movies in popularity order until ``links`` are reached, then sorted as OPUS lists them."""
    blocks, total = [], 0
    while total < links:
        blocks.append(block_pairs(seed, target, pivot, len(blocks)))
        total += int(blocks[-1][:, 3].sum())
    rows = np.concatenate(blocks)
    cumulative = np.cumsum(rows[:, 3])
    last = int(np.searchsorted(cumulative, links))
    rows = rows[: last + 1]
    rows[last, 3] -= cumulative[last] - links
    movie, tv, pv, count = rows.T
    year, imdb, _ = movie_attributes(seed, movie)
    tfile, pfile = file_ids(seed, target, movie, tv), file_ids(seed, pivot, movie, pv)
    first, second = (tfile, pfile) if target < pivot else (pfile, tfile)
    order = np.lexsort((second, first, movie, imdb, year))
    a, b = sorted((target, pivot))
    prefix = [f"{a}/{y}/{i}/{f}.xml.gz\t{b}/{y}/{i}/{s}.xml.gz\t" for y, i, f, s in
              zip(year[order].tolist(), imdb[order].tolist(), first[order].tolist(),
                  second[order].tolist())]
    return Plan(movie[order], year[order], tv[order], pv[order], count[order],
                np.array(prefix, dtype=object))


def chunk_bounds(links: np.ndarray) -> list[tuple[int, int]]:
    """Ranges of document pairs of about CHUNK_LINKS links each."""
    chunk = (np.cumsum(links) - links) // CHUNK_LINKS
    edges = [0, *(np.flatnonzero(np.diff(chunk)) + 1).tolist(), len(links)]
    return list(itertools.pairwise(edges))


# ---------------------------------------------------------------------------- links


@dataclass(frozen=True)
class Links:
    """The links of a range of document pairs; ids 0 mean none (an empty side)."""

    doc: np.ndarray
    movie: np.ndarray
    target_version: np.ndarray
    pivot_version: np.ndarray
    line: np.ndarray
    pivot_line: np.ndarray
    kind: np.ndarray
    target_ids: tuple[np.ndarray, np.ndarray]
    pivot_ids: tuple[np.ndarray, np.ndarray]


def segment_cumsum(values: np.ndarray, first: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Inclusive cumulative sums restarting at every segment."""
    total = np.cumsum(values)
    return total - np.repeat(total[first] - values[first], sizes)


def id_gaps(h: np.ndarray) -> np.ndarray:
    """Sentence ids skipped before a line (subtitle lines no alignment uses)."""
    return np.searchsorted(GAP_CDF, unit(h), side="right")


def line_kinds(kind: np.ndarray, start: np.ndarray, end: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """Resolve 2:1 links (one absorbs the next line); (kinds, absorbed lines)."""
    k21 = kind == K21
    merged = k21 & ~(np.roll(k21, 1) & ~start) & ~(np.roll(kind == DROP, -1) | end)
    kind = np.where(k21 & ~merged, K11, kind)
    return kind, np.roll(merged, 1) & ~start


def chunk_links(plan: Plan, lo: int, hi: int, seed: int, target: str, pivot: str) -> Links:
    """Link the script lines of document pairs ``lo .. hi`` (the same in every pass)."""
    wanted = plan.links[lo:hi]
    sizes = wanted + wanted // 8 + 40
    first = np.cumsum(sizes) - sizes
    doc = np.repeat(np.arange(lo, hi), sizes)
    line = np.arange(int(sizes.sum())) - np.repeat(first, sizes)
    end = np.zeros(len(line), bool)
    end[first + sizes - 1] = True
    movie, tv, pv = plan.movie[doc], plan.target_version[doc], plan.pivot_version[doc]
    pair_key = pack(movie, tv * 8 + pv, line)
    drawn = np.searchsorted(KIND_CDF, unit(hashed(salt(seed, pivot, "kind"), pair_key)),
                            side="right")
    kind, absorbed = line_kinds(drawn, line == 0, end)
    keep = (kind != DROP) & ~absorbed
    keep &= segment_cumsum(keep.astype(np.int64), first, sizes) <= np.repeat(wanted, sizes)
    if not np.array_equal(np.bincount(doc[keep] - lo, minlength=hi - lo), wanted):
        raise RuntimeError("a document pair has too few script lines for its links")
    target_id = line + segment_cumsum(id_gaps(hashed(salt(seed, target, "gap"),
                                                     pack(movie, tv, line))), first, sizes) + 1
    pivot_count = np.select([absorbed | (kind == K10), kind == K12], [0, 2], 1)
    pivot_gap = id_gaps(hashed(salt(seed, pivot, "gap"), pack(movie, pv, line)))
    pivot_id = segment_cumsum(pivot_count + pivot_gap, first, sizes) - pivot_count + 1
    shift_hash = hashed(salt(seed, pivot, "shift"), pair_key)
    shifted = (unit(shift_hash) < MISALIGNED) & (kind == K11)
    pivot_line = np.maximum(line + np.where(shifted, 2 * field(shift_hash, 0, 1) - 1, 0), 0)
    at = np.flatnonzero(keep)
    kept = kind[at]
    if max(target_id.max(), pivot_id.max()) + 2 >= MAX_ID:
        raise RuntimeError("sentence id above MAX_ID")
    return Links(
        doc[at], movie[at], tv[at], pv[at], line[at], pivot_line[at], kept,
        (np.where(kept == K01, 0, target_id[at]),
         np.where(kept == K21, target_id[np.minimum(at + 1, len(line) - 1)], 0)),
        (np.where(kept == K10, 0, pivot_id[at]), np.where(kept == K12, pivot_id[at] + 1, 0)))


# ---------------------------------------------------------------------------- meanings


@dataclass(frozen=True)
class Rows:
    """Sentences to render, one per row: meaning key, phrasing variant, style, what follows."""

    key: np.ndarray
    variant: np.ndarray
    style: np.ndarray
    dash: np.ndarray
    joined: np.ndarray


def common_cdf(seed: int) -> np.ndarray:
    """Cumulative frequencies of the common sentence pool (log-normal weights)."""
    weights = np.exp(np.random.default_rng([seed, 7]).normal(0.0, 2.0, COMMON_POOL))
    return np.cumsum(weights)[:-1] / weights.sum()


def keyed(cls: int, payload: np.ndarray) -> np.ndarray:
    """A meaning key: class in the top two bits."""
    return (payload.astype(np.uint64) & PAYLOAD) | np.uint64(cls << 62)


def meanings(seed: int, common: np.ndarray, movie: np.ndarray, line: np.ndarray) -> np.ndarray:
    """The meaning of each script line (a movie's script is the same in every version)."""
    h = hashed(salt(seed, "meaning"), (movie.astype(np.int64) << 16) | line)
    u = unit(h)
    head = np.searchsorted(REPLY_CDF, u / HEAD_SHARE, side="right")
    pool = np.searchsorted(common, (u - HEAD_SHARE) / COMMON_SHARE, side="right")
    return np.select([u < HEAD_SHARE, u < HEAD_SHARE + COMMON_SHARE],
                     [keyed(HEAD, head), keyed(COMMON, pool)], keyed(TAIL, mix(h)))


def loosen(key: np.ndarray, h: np.ndarray) -> np.ndarray:
    """Head replies translated loosely: some take another head concept's pivot sentence."""
    loose = ((key >> np.uint64(62)) == HEAD) & (fraction(mix(h), 0) < LOOSE_HEAD)
    other = keyed(HEAD, np.searchsorted(REPLY_CDF, fraction(mix(h), 24), side="right"))
    return np.where(loose, other, key)


def variants(lang: Language, key: np.ndarray, h: np.ndarray, target: bool) -> np.ndarray:
    """The phrasing variant of each occurrence (0: the meaning's base phrasing)."""
    cls = (key >> np.uint64(62)).astype(np.int64)
    head = cls == HEAD
    concept = np.where(head, key & PAYLOAD, 0).astype(np.int64)
    u, gate = fraction(h, 8), fraction(mix(h), 40)
    head_variant = (lang.head_count[concept] * u * u).astype(np.int64)
    limit = np.where(cls == COMMON, 5 if target else 2, 3 if target else 2)
    composed = (u * (1 + field(mix(key), 0, 16) % limit)).astype(np.int64)
    composed[(cls != COMMON) & (gate >= (0.35 if target else 0.2))] = 0
    return np.where(head, head_variant, composed)


def occurrence(h: np.ndarray, empty: np.ndarray, shares: tuple[float, ...]
               ) -> tuple[np.ndarray, np.ndarray]:
    """Style and dash of each occurrence; ``shares``: continued, shouted, space-only."""
    edges = np.cumsum(shares)
    style = np.select([empty, fraction(h, 32, 32) < edges[0], fraction(h, 32, 32) < edges[1],
                       fraction(h, 32, 32) < edges[2]], [EMPTY, CONTINUED, SHOUTED, SPACE],
                      NORMAL)
    return style.astype(np.int8), field(h, 0, 8) < 19


def repeat_rows(count: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row -> link index, and position within the link (0 or 1), for ``count`` rows a link
    (at least one: an empty side is one empty row)."""
    reps = np.maximum(count, 1)
    link = np.repeat(np.arange(len(count)), reps)
    return link, np.arange(len(link)) - np.repeat(np.cumsum(reps) - reps, reps)


def target_rows(lang: Language, links: Links, seed: int, common: np.ndarray) -> Rows:
    """Target side sentences: none for 0:1, two script lines for 2:1."""
    count = np.select([links.kind == K01, links.kind == K21], [0, 2], 1)
    link, second = repeat_rows(count)
    movie, line = links.movie[link], links.line[link] + second
    key = meanings(seed, common, movie, line)
    h = hashed(salt(seed, lang.code, "occurrence"), pack(movie, links.target_version[link],
                                                         line))
    style, dash = occurrence(h, count[link] == 0, (0.015, 0.008, 0.003))
    return Rows(key, variants(lang, key, h, True), style, dash, (count[link] == 2) & (second == 0))


def pivot_rows(lang: Language, links: Links, seed: int, common: np.ndarray) -> Rows:
    """Pivot side sentences: none for 1:0, the line's and a short extra one for 1:2."""
    count = np.select([links.kind == K10, links.kind == K12], [0, 2], 1)
    link, second = repeat_rows(count)
    movie, line = links.movie[link], links.pivot_line[link]
    packed = pack(movie, links.pivot_version[link] * 2 + second, line)
    h = hashed(salt(seed, lang.code, "occurrence"), packed)
    extra = keyed(SHORT, hashed(salt(seed, lang.code, "extra"), packed))
    key = np.where(second == 1, extra, loosen(meanings(seed, common, movie, line), h))
    style, dash = occurrence(h, count[link] == 0, (0.01, 0.003, 0.002))
    return Rows(key, variants(lang, key, h, False), style, dash,
                (count[link] == 2) & (second == 0))


# ---------------------------------------------------------------------------- rendering


def word_counts(lang: Language, key: np.ndarray) -> np.ndarray:
    """Words of composed sentences: the meaning's length scaled to the language, +-1."""
    cls = (key >> np.uint64(62)).astype(np.int64)
    u = unit(hashed(salt("length"), key))
    base = np.ones(len(key), np.int64)
    for c, cdf in LENGTH_CDF.items():
        base = np.where(cls == c, np.searchsorted(cdf, u, side="right") + 1, base)
    jitter = np.array([-1, 0, 0, 0, 1])[field(mix(key ^ lang.salt), 0, 16) % 5]
    return np.clip(np.round(base * lang.ratio).astype(np.int64) + jitter, 1, MAX_WORDS)


def end_pieces(lang: Language, rows: Rows, composed: np.ndarray) -> np.ndarray:
    """Final punctuation and the line end (or the space before a joined sentence)."""
    h = hashed(salt("punct"), rows.key)
    punct = np.searchsorted(PUNCT_CDF, unit(h), side="right")
    change = (rows.variant > 0) & (field(mix(h ^ rows.variant.astype(np.uint64)), 0, 2) == 0)
    changed = np.select([punct == DOT, punct == EXCLAIM, punct == QUESTION],
                        [np.where(field(h, 0, 1) == 1, EXCLAIM, ELLIPSIS), DOT, QEXCL], punct)
    punct = np.where(change, changed, punct)
    if lang.spaced:
        spaced = field(mix(h ^ lang.salt), 0, 3) != 0
        punct = np.where(spaced & (punct == QUESTION), SPACED_Q, punct)
        punct = np.where(spaced & (punct == EXCLAIM), SPACED_EXCL, punct)
    punct = np.where(composed, punct, BARE)
    return lang.end_base + 2 * punct + rows.joined


def prefixes(rows: Rows, composed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The piece before the first word (dash, interjection, "...") and the first word's form."""
    h = hashed(salt("interjection"), rows.key)
    own = fraction(h, 0) < 0.05
    added = (rows.variant > 0) & (fraction(mix(h ^ rows.variant.astype(np.uint64)), 0) < 0.3)
    which = np.where(own, field(h, 32, 3), field(mix(h ^ rows.variant.astype(np.uint64)), 32, 3))
    interjected = composed & (rows.style == NORMAL) & (own | added)
    dash = rows.dash.astype(np.int64)
    pre = np.select([rows.style == SPACE, rows.style == EMPTY, interjected,
                     composed & (rows.style == CONTINUED)],
                    [PRE_SPACE, PRE_NONE, PRE_INTERJ + 2 * which + dash, PRE_CONT], dash)
    form = np.select([interjected, rows.style == CONTINUED, rows.style == SHOUTED],
                     [INNER, LOWFIRST, UPFIRST], FIRST)
    return pre, form


def word_pieces(lang: Language, rows: Rows, index: np.ndarray, first_form: np.ndarray,
                counts: np.ndarray) -> np.ndarray:
    """Table indices of the words of the composed rows ``index``, flattened row by row. The
    word at a position has the same frequency rank in every language (a rough translation)."""
    row = np.repeat(index, counts)
    pos = np.arange(len(row)) - np.repeat(np.cumsum(counts) - counts, counts)
    h = mix(mix(rows.key[row]) + pos.astype(np.uint64) * GOLDEN)
    rank = np.exp(fraction(h, 0, 32) * np.log(lang.words + 1.0)).astype(np.int64) - 1
    rank = np.clip(rank, 0, lang.words - 1)
    variant = rows.variant[row]
    swap = (variant > 0) & (field(mix(h ^ variant.astype(np.uint64)), 0, 2) == 0)
    rank = np.where(swap, lang.alt[rank], rank)
    comma = (field(h, 32, 8) < 18) & (pos < np.repeat(counts, counts) - 1)
    shouted = rows.style[row] == SHOUTED
    form = np.where(pos == 0, first_form[row], np.where(shouted, UPINNER, INNER))
    return lang.word_base + (form * 2 + comma) * lang.words + rank


def render(lang: Language, rows: Rows) -> str:
    """The text of the rows: one line per link (joined rows share a line)."""
    cls = (rows.key >> np.uint64(62)).astype(np.int64)
    filled = rows.style < EMPTY
    head, composed = filled & (cls == HEAD), filled & (cls != HEAD)
    counts = np.zeros(len(cls), np.int64)
    counts[composed] = word_counts(lang, rows.key[composed])
    counts[head] = 1
    size = counts + 2
    start = np.cumsum(size) - size
    pieces = np.empty(int(size.sum()), np.int64)
    pre, first_form = prefixes(rows, composed)
    pieces[start] = pre
    pieces[start + size - 1] = end_pieces(lang, rows, composed)
    concept = (rows.key[head] & PAYLOAD).astype(np.int64)
    pieces[start[head] + 1] = lang.head_base + 2 * (lang.head_first[concept]
                                                     + rows.variant[head]) + (
        rows.style[head] == SHOUTED)
    index = np.flatnonzero(composed)
    slots = np.repeat(start[index] + 1, counts[index]) + np.arange(int(counts[index].sum())) - \
        np.repeat(np.cumsum(counts[index]) - counts[index], counts[index])
    pieces[slots] = word_pieces(lang, rows, index, first_form, counts[index])
    return "".join(lang.table[pieces].tolist())


NUMBERS = np.array([""] + [str(i) for i in range(1, MAX_ID)], dtype=object)
SPACED_NUMBERS = np.array([""] + [f" {i}" for i in range(1, MAX_ID)], dtype=object)
TABBED_NUMBERS = np.array(["\t"] + [f"\t{i}" for i in range(1, MAX_ID)], dtype=object)
ENDED_NUMBERS = np.array(["\n"] + [f" {i}\n" for i in range(1, MAX_ID)], dtype=object)


def ids_text(plan: Plan, links: Links, target_first: bool) -> str:
    """The ``.ids`` lines of the links."""
    a, b = (links.target_ids, links.pivot_ids) if target_first else (links.pivot_ids,
                                                                     links.target_ids)
    pieces = np.empty((len(links.doc), 5), dtype=object)
    pieces[:, 0] = plan.prefix[links.doc]
    pieces[:, 1], pieces[:, 2] = NUMBERS[a[0]], SPACED_NUMBERS[a[1]]
    pieces[:, 3], pieces[:, 4] = TABBED_NUMBERS[b[0]], ENDED_NUMBERS[b[1]]
    return "".join(pieces.ravel().tolist())


# ---------------------------------------------------------------------------- statistics


def distinct(values: np.ndarray) -> np.ndarray:
    """The sorted distinct values (sorting: numpy 2's hash-based ``np.unique`` is ~10x slower
    on tens of millions of integers)."""
    ordered = np.sort(values)
    return ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))] if len(ordered) \
        else ordered


class BitextStats:
    """Counts of one bitext, and hashes of the texts of its 1:1 links."""

    def __init__(self) -> None:
        self.hashes: dict[str, list[np.ndarray]] = {"target": [], "pivot": []}
        self.frequent: dict[int, str] = {}
        self.kinds = np.zeros(6, np.int64)
        self.splits = np.zeros(10, np.int64)
        self.target_docs: list[np.ndarray] = []

    def add_links(self, plan: Plan, links: Links) -> None:
        """Link kinds, years and the target lines used."""
        self.kinds += np.bincount(links.kind, minlength=6)
        self.splits += np.bincount(plan.year[links.doc] % 10, minlength=10)
        doc = (links.movie << 3) | links.target_version
        last = links.line + (links.kind == K21)
        self.target_docs.append(pd.Series(last[links.kind != K01])
                                .groupby(doc[links.kind != K01]).max())

    def add_text(self, side: str, text: str, links: Links) -> None:
        """Hash the 1:1 texts; remember the texts of the chunk's FREQUENT most frequent pivot
        sentences (to name the top and widest ones)."""
        lines = list(itertools.compress(text.split("\n"), (links.kind == K11).tolist()))
        hashes = np.fromiter(map(hash, lines), np.int64, len(lines))
        self.hashes[side].append(hashes)
        if side == "pivot" and len(hashes):
            codes, values = pd.factorize(hashes)
            first = np.empty(len(values), np.int64)
            first[codes[::-1]] = np.arange(len(codes))[::-1]
            for i in np.argsort(np.bincount(codes))[-FREQUENT:].tolist():
                self.frequent.setdefault(int(values[i]), lines[first[i]])

    def summary(self) -> dict:
        """Counts, distinct sentences and pivot fan-outs (1:1 links with text on both sides)."""
        target, pivot = (np.concatenate(self.hashes[s]) for s in ("target", "pivot"))
        filled = ~np.isin(target, [hash(""), hash(" ")]) & ~np.isin(pivot, [hash(""), hash(" ")])
        target, pivot = target[filled], pivot[filled]
        tcodes, tuniq = pd.factorize(target)
        pcodes, puniq = pd.factorize(pivot)
        links = np.bincount(pcodes)
        pairs = distinct(pcodes.astype(np.int64) * len(tuniq) + tcodes)
        fanout = np.bincount(pairs // len(tuniq), minlength=len(puniq))
        top, widest = int(links.argmax()), int(fanout.argmax())
        kinds = {name: int(self.kinds[k]) for name, k in
                 (("1:1", K11), ("2:1", K21), ("1:2", K12), ("1:0", K10), ("0:1", K01))}
        return {
            "links": int(self.kinds.sum()), "one_to_one": kinds["1:1"], "link_kinds": kinds,
            "distinct_target_sentences": len(tuniq), "distinct_pivot_sentences": len(puniq),
            "top_pivot_sentence": self.frequent.get(int(puniq[top]), "?"),
            "top_pivot_links": int(links[top]), "top_pivot_fanout": int(fanout[top]),
            "max_fanout": int(fanout[widest]),
            "max_fanout_sentence": self.frequent.get(int(puniq[widest]), "?"),
            "target_hashes": np.asarray(tuniq, dtype=np.int64),
            "split_links": self.splits.tolist(),
        }


# ---------------------------------------------------------------------------- writing


@dataclass(frozen=True)
class Task:
    """One bitext to write."""

    out: Path
    lang: str
    pivot: str
    links_per_pivot: int
    seed: int


def member_info(name: str) -> zipfile.ZipInfo:
    """A deflated zip member with a fixed date and mode."""
    info = zipfile.ZipInfo(name, date_time=RELEASE_DATE)
    info.compress_type = zipfile.ZIP_DEFLATED
    info._compresslevel = COMPRESS_LEVEL  # what ZipFile.open(name, "w") sets from the archive
    info.external_attr = 0o644 << 16
    return info


def notices(pair: str, task: Task) -> dict[str, str]:
    """The README and LICENSE members OPUS puts in its Moses zips."""
    return {
        "README": f"{CORPUS} {pair}: synthetic release written by "
                  f"scripts/generate_opensubtitles_independent.py (seed {task.seed}, "
                  f"{task.links_per_pivot} links).\n",
        "LICENSE": "Synthetic benchmark data, generated text only; no restrictions.\n",
    }


def write_bitext(task: Task) -> dict:
    """Worker: plan one bitext and stream its zip; its statistics."""
    started = time.perf_counter()
    langs = {code: build_language(code, task.seed) for code in (task.lang, task.pivot)}
    common = common_cdf(task.seed)
    plan = plan_bitext(task.seed, task.lang, task.pivot, task.links_per_pivot)
    bounds = chunk_bounds(plan.links)
    a, b = sorted((task.lang, task.pivot))
    pair = f"{a}-{b}"
    path = task.out / "moses" / f"{pair}.txt.zip"
    stats = BitextStats()
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in notices(pair, task).items():
            archive.writestr(member_info(name), text)
        for code in (a, b, "ids"):
            with archive.open(member_info(f"{CORPUS}.{pair}.{code}"), "w",
                              force_zip64=True) as member:
                for lo, hi in bounds:
                    links = chunk_links(plan, lo, hi, task.seed, task.lang, task.pivot)
                    member.write(side_text(code, task, langs, plan, links, common, stats)
                                 .encode())
    summary = stats.summary()
    summary.update(bytes=path.stat().st_size, document_pairs=len(plan.links),
                   movies=distinct(plan.movie),
                   pivot_documents=len(distinct((plan.movie << 3) | plan.pivot_version)),
                   target_documents=pd.concat(stats.target_docs).groupby(level=0).max(),
                   seconds=round(time.perf_counter() - started, 2))
    return summary


def side_text(code: str, task: Task, langs: dict[str, Language], plan: Plan, links: Links,
              common: np.ndarray, stats: BitextStats) -> str:
    """The text of one member for one chunk of links (counting as it goes)."""
    if code == "ids":
        stats.add_links(plan, links)
        return ids_text(plan, links, task.lang < task.pivot)
    if code == task.lang:
        text = render(langs[code], target_rows(langs[code], links, task.seed, common))
        stats.add_text("target", text, links)
    else:
        text = render(langs[code], pivot_rows(langs[code], links, task.seed, common))
        stats.add_text("pivot", text, links)
    return text


def run_tasks(tasks: list[Task], jobs: int) -> list[dict]:
    """Write the bitexts, in ``jobs`` forked processes when ``jobs > 1``."""
    if jobs <= 1 or len(tasks) <= 1:
        return [write_bitext(t) for t in tasks]
    with multiprocessing.get_context("fork").Pool(min(jobs, len(tasks))) as pool:
        return pool.map(write_bitext, tasks, chunksize=1)


# ---------------------------------------------------------------------------- summary


def summarize(lang: str, pivots: list[str], links_per_pivot: int, seed: int,
              results: list[dict]) -> dict:
    """The release summary (generate_opensubtitles.py's fields, plus kinds and documents;
    ``seconds`` is set by the caller)."""
    target_docs = pd.concat([r.pop("target_documents") for r in results]).groupby(level=0).max()
    movies = distinct(np.concatenate([r.pop("movies") for r in results]))
    target = distinct(np.concatenate([r.pop("target_hashes") for r in results]))
    splits = np.sum([r.pop("split_links") for r in results], axis=0)
    bitexts = {"-".join(sorted((lang, p))): r for p, r in zip(pivots, results)}
    links = sum(r["links"] for r in results)
    return {
        "generator": "generate_opensubtitles_independent", "lang": lang, "pivots": pivots,
        "links_per_pivot": links_per_pivot, "seed": seed, "forms": ["moses"],
        "movies": len(movies), "target_lines": int((target_docs + 1).sum()),
        "target_documents": len(target_docs),
        "document_pairs": sum(r["document_pairs"] for r in results), "links": links,
        "one_to_one_links": sum(r["one_to_one"] for r in results),
        "distinct_target_sentences": len(target),
        "split_links": {"train": int(splits.sum() - splits[4] - splits[5]),
                        "dev": int(splits[5]), "test": int(splits[4])},
        "bitexts": bitexts, "bytes": sum(r["bytes"] for r in results),
        "seconds": None,
    }


def summary_lines(s: dict) -> list[str]:
    """The printed summary."""
    lines = [f"{'bitext':<7} {'links':>11} {'1:1':>7} {'docs':>6} {'pivot sents':>12} "
             f"{'fan-out':>8} {'max':>6} {'MB':>8}  most frequent pivot sentence (1:1 links)"]
    for name, b in s["bitexts"].items():
        lines.append(f"{name:<7} {b['links']:>11,} {100 * b['one_to_one'] / b['links']:>6.2f}% "
                     f"{b['document_pairs']:>6,} {b['distinct_pivot_sentences']:>12,} "
                     f"{b['top_pivot_fanout']:>8,} {b['max_fanout']:>6,} "
                     f"{b['bytes'] / 1e6:>8.1f}  {b['top_pivot_sentence']!r} "
                     f"({b['top_pivot_links']:,})")
    split = s["split_links"]
    lines += [
        f"{s['links']:,} links ({100 * s['one_to_one_links'] / s['links']:.2f} % 1:1) in "
        f"{s['document_pairs']:,} document pairs of {s['movies']:,} movies, "
        f"{s['target_documents']:,} {s['lang']} documents of {s['target_lines']:,} lines, "
        f"{s['distinct_target_sentences']:,} distinct {s['lang']} sentences in 1:1 links",
        f"links by split: train {split['train']:,}, dev {split['dev']:,}, test {split['test']:,}",
        f"{s['bytes'] / 1e6:,.1f} MB (moses) in {s['seconds']:.1f} s",
    ]
    return lines


def generate(out: Path, lang: str, pivots: list[str], links_per_pivot: int, seed: int = 0,
             jobs: int = 1) -> dict:
    """Generate a release into ``out`` (and ``out/generated.json``); return its summary."""
    started = time.perf_counter()
    (out / "moses").mkdir(parents=True, exist_ok=True)
    pivots = sorted(pivots)
    tasks = [Task(out, lang, p, links_per_pivot, seed) for p in pivots]
    summary = summarize(lang, pivots, links_per_pivot, seed, run_tasks(tasks, jobs))
    summary["seconds"] = round(time.perf_counter() - started, 2)
    (out / "generated.json").write_text(json.dumps(summary, indent=1, ensure_ascii=False) + "\n")
    return summary


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="release folder to write")
    parser.add_argument("--lang", default="en", help="target language")
    parser.add_argument("--pivots", default="de,fi,fr,ru,sv", help="comma-separated")
    parser.add_argument("--links-per-pivot", type=int, default=4_000_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                        help="worker processes (one bitext each)")
    args = parser.parse_args(argv)
    args.pivots = [p for p in dict.fromkeys(args.pivots.split(",")) if p and p != args.lang]
    unknown = sorted({args.lang, *args.pivots} - set(LANGS))
    if unknown or not args.pivots or args.links_per_pivot < 1:
        parser.error(f"need at least one pivot, --links-per-pivot >= 1 and languages from "
                     f"{', '.join(LANGS)} (unknown: {', '.join(unknown) or 'none'})")
    return args


def main(argv: list[str] | None = None) -> None:
    """Generate a release and print its summary."""
    args = parse_args(argv)
    summary = generate(args.out, args.lang, args.pivots, args.links_per_pivot, args.seed,
                       args.jobs)
    print("\n".join(summary_lines(summary)))


if __name__ == "__main__":
    main()
