<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="ar" sourcelanguage="en">
<context>
    <name>CannedPicker</name>
    <message>
        <source>Canned replies</source>
        <translation>الردود الجاهزة</translation>
    </message>
</context>
<context>
    <name>CannedRepliesDialog</name>
    <message>
        <source>Only a supervisor can add, change or delete canned replies.</source>
        <translation>يمكن للمشرف فقط إضافة الردود الجاهزة أو تغييرها أو حذفها.</translation>
    </message>
    <message>
        <source>This canned reply no longer exists: someone deleted it meanwhile.</source>
        <translation>هذا الرد الجاهز لم يعد موجودًا: حذفه أحدهم في هذه الأثناء.</translation>
    </message>
    <message>
        <source>Another canned reply already uses /{shortcut}: choose another shortcut.</source>
        <translation>يستخدم رد جاهز آخر الاختصار /{shortcut}: اختر اختصارًا آخر.</translation>
    </message>
    <message>
        <source>The shortcut is 1 to {count} letters, digits, _ or -.</source>
        <translation>الاختصار من 1 إلى {count} من الحروف أو الأرقام أو _ أو -.</translation>
    </message>
    <message>
        <source>The title is 1 to {count} characters.</source>
        <translation>العنوان من 1 إلى {count} حرفًا.</translation>
    </message>
    <message>
        <source>The text is 1 to {count} characters.</source>
        <translation>النص من 1 إلى {count} حرفًا.</translation>
    </message>
    <message>
        <source>Canned replies</source>
        <translation>الردود الجاهزة</translation>
    </message>
    <message>
        <source>Shortcut</source>
        <translation>الاختصار</translation>
    </message>
    <message>
        <source>thanks</source>
        <translation>شكرا</translation>
    </message>
    <message>
        <source>Title</source>
        <translation>العنوان</translation>
    </message>
    <message>
        <source>Reply text</source>
        <translation>نص الرد</translation>
    </message>
    <message>
        <source>Hi {{name}}, thanks for writing to us!</source>
        <translation>مرحبًا {{name}}، شكرًا لتواصلك معنا!</translation>
    </message>
    <message>
        <source>{{name}} and {{number}} are filled in with the customer&apos;s name and number.</source>
        <translation>يُملأ {{name}} و{{number}} باسم العميل ورقمه.</translation>
    </message>
    <message>
        <source>New</source>
        <translation>جديد</translation>
    </message>
    <message>
        <source>New canned reply</source>
        <translation>رد جاهز جديد</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>حفظ</translation>
    </message>
    <message>
        <source>Save canned reply</source>
        <translation>حفظ الرد الجاهز</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>حذف</translation>
    </message>
    <message>
        <source>Delete canned reply</source>
        <translation>حذف الرد الجاهز</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>إغلاق</translation>
    </message>
    <message>
        <source>Shortcut  /</source>
        <translation>الاختصار  /</translation>
    </message>
    <message>
        <source>Text</source>
        <translation>النص</translation>
    </message>
    <message>
        <source>Saving /{shortcut}…</source>
        <translation>جارٍ حفظ /{shortcut}…</translation>
    </message>
    <message>
        <source>Deleting /{shortcut}…</source>
        <translation>جارٍ حذف /{shortcut}…</translation>
    </message>
    <message>
        <source>Delete /{shortcut} ({title}) for everyone?</source>
        <translation>هل تحذف /{shortcut} ({title}) لدى الجميع؟</translation>
    </message>
    <message>
        <source>Saved /{shortcut}.</source>
        <translation>تم حفظ /{shortcut}.</translation>
    </message>
    <message>
        <source>Deleted.</source>
        <translation>تم الحذف.</translation>
    </message>
    <message>
        <source>No canned replies yet: write one and save it.</source>
        <translation>لا توجد ردود جاهزة بعد: اكتب ردًا واحفظه.</translation>
    </message>
    <message>
        <source>Canned replies could not be loaded: {reason}</source>
        <translation>تعذّر تحميل الردود الجاهزة: {reason}</translation>
    </message>
</context>
<context>
    <name>Composer</name>
    <message>
        <source>The customer&apos;s 24-hour window is closed: free text cannot be sent. Pick a template below to reopen it.</source>
        <translation>نافذة الـ 24 ساعة لهذا العميل مغلقة: لا يمكن إرسال نص حر. اختر قالبًا أدناه لإعادة فتحها.</translation>
    </message>
    <message>
        <source>Write a reply…  (Ctrl+Enter sends)</source>
        <translation>اكتب ردًا…  (Ctrl+Enter للإرسال)</translation>
    </message>
    <message>
        <source>Write an internal note for the team; the customer never sees it…  (Ctrl+Enter adds it)</source>
        <translation>اكتب ملاحظة داخلية للفريق؛ لن يراها العميل أبدًا…  (Ctrl+Enter للإضافة)</translation>
    </message>
    <message>
        <source>Send anyway</source>
        <translation>أرسل على أي حال</translation>
    </message>
    <message>
        <source>Another system</source>
        <translation>نظام آخر</translation>
    </message>
    <message>
        <source>Attached: {name}  ·  {size}</source>
        <translation>مرفق: {name}  ·  {size}</translation>
    </message>
    <message>
        <source>Attach a file</source>
        <translation>إرفاق ملف</translation>
    </message>
    <message>
        <source>Reply</source>
        <translation>رد</translation>
    </message>
    <message>
        <source>Note</source>
        <translation>ملاحظة</translation>
    </message>
    <message>
        <source>Write a reply</source>
        <translation>كتابة رد</translation>
    </message>
    <message>
        <source>Write an internal note</source>
        <translation>كتابة ملاحظة داخلية</translation>
    </message>
    <message>
        <source>An internal note for the team  ({shortcut})</source>
        <translation>ملاحظة داخلية للفريق  ({shortcut})</translation>
    </message>
    <message>
        <source>Time left in the customer&apos;s window</source>
        <translation>الوقت المتبقي في نافذة العميل</translation>
    </message>
    <message>
        <source>Reply text</source>
        <translation>نص الرد</translation>
    </message>
    <message>
        <source>Send</source>
        <translation>إرسال</translation>
    </message>
    <message>
        <source>Send reply</source>
        <translation>إرسال الرد</translation>
    </message>
    <message>
        <source>Template</source>
        <translation>قالب</translation>
    </message>
    <message>
        <source>Template preview</source>
        <translation>معاينة القالب</translation>
    </message>
    <message>
        <source>Send template</source>
        <translation>إرسال القالب</translation>
    </message>
    <message>
        <source>Attach…</source>
        <translation>إرفاق…</translation>
    </message>
    <message>
        <source>Attach a photo, voice note, video or document (or drop or paste one)</source>
        <translation>أرفق صورة أو رسالة صوتية أو فيديو أو مستندًا (أو اسحبه أو الصقه هنا)</translation>
    </message>
    <message>
        <source>Attached file</source>
        <translation>الملف المرفق</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>إزالة</translation>
    </message>
    <message>
        <source>Remove the attached file</source>
        <translation>إزالة الملف المرفق</translation>
    </message>
    <message>
        <source>Upload progress</source>
        <translation>تقدّم الرفع</translation>
    </message>
    <message>
        <source>Note text</source>
        <translation>نص الملاحظة</translation>
    </message>
    <message>
        <source>Add note</source>
        <translation>إضافة ملاحظة</translation>
    </message>
    <message>
        <source>Window: {countdown}</source>
        <translation>النافذة: {countdown}</translation>
    </message>
    <message>
        <source>Window closed: templates only</source>
        <translation>النافذة مغلقة: القوالب فقط</translation>
    </message>
    <message>
        <source>Template value: {name}</source>
        <translation>قيمة القالب: {name}</translation>
    </message>
    <message>
        <source>Fill in every template value first.</source>
        <translation>املأ كل قيم القالب أولًا.</translation>
    </message>
    <message>
        <source>Sending…</source>
        <translation>جارٍ الإرسال…</translation>
    </message>
    <message>
        <source>Queued.</source>
        <translation>في قائمة الانتظار.</translation>
    </message>
    <message>
        <source>{state}.</source>
        <translation>{state}.</translation>
    </message>
    <message>
        <source>A colleague wrote in this conversation after you last looked.</source>
        <translation>كتب زميل في هذه المحادثة بعد آخر مرة نظرت فيها.</translation>
    </message>
    <message>
        <source>Add a caption…  (Ctrl+Enter sends)</source>
        <translation>أضف تعليقًا…  (Ctrl+Enter للإرسال)</translation>
    </message>
    <message>
        <source>Could not attach the file: {reason}</source>
        <translation>تعذّر إرفاق الملف: {reason}</translation>
    </message>
    <message>
        <source>A voice note or audio file takes no caption; send the words on their own.</source>
        <translation>لا تقبل الرسالة الصوتية أو ملف الصوت تعليقًا؛ أرسل الكلمات وحدها.</translation>
    </message>
    <message>
        <source>Uploading…</source>
        <translation>جارٍ الرفع…</translation>
    </message>
    <message>
        <source>another system</source>
        <translation>نظام آخر</translation>
    </message>
    <message>
        <source>someone else</source>
        <translation>شخص آخر</translation>
    </message>
    <message>
        <source>The conversation changed</source>
        <translation>تغيّرت المحادثة</translation>
    </message>
    <message>
        <source>{who} wrote to this customer after you last looked:

{messages}

Send your reply anyway?</source>
        <translation>كتب {who} إلى هذا العميل بعد آخر مرة نظرت فيها:

{messages}

هل ترسل ردك على أي حال؟</translation>
    </message>
    <message>
        <source>Not sent. Read what your colleague wrote; your draft is kept.</source>
        <translation>لم يُرسل. اقرأ ما كتبه زميلك؛ مسودتك محفوظة.</translation>
    </message>
    <message>
        <source>Adding the note…</source>
        <translation>جارٍ إضافة الملاحظة…</translation>
    </message>
    <message>
        <source>Note added.</source>
        <translation>أُضيفت الملاحظة.</translation>
    </message>
</context>
<context>
    <name>ConversationListModel</name>
    <message>
        <source>window {state}</source>
        <translation>النافذة {state}</translation>
    </message>
    <message numerus="yes">
        <source>%n unread</source>
        <translation>
            <numerusform>لا رسائل غير مقروءة</numerusform>
            <numerusform>رسالة واحدة غير مقروءة</numerusform>
            <numerusform>رسالتان غير مقروءتين</numerusform>
            <numerusform>%Ln رسائل غير مقروءة</numerusform>
            <numerusform>%Ln رسالة غير مقروءة</numerusform>
            <numerusform>%Ln رسالة غير مقروءة</numerusform>
        </translation>
    </message>
    <message>
        <source>labels: {labels}</source>
        <translation>التصنيفات: {labels}</translation>
    </message>
    <message>
        <source>opted out of marketing</source>
        <translation>ألغى الاشتراك في التسويق</translation>
    </message>
</context>
<context>
    <name>DetailsPane</name>
    <message>
        <source>Contact</source>
        <translation>جهة الاتصال</translation>
    </message>
    <message>
        <source>Contact name</source>
        <translation>اسم جهة الاتصال</translation>
    </message>
    <message>
        <source>Contact number</source>
        <translation>رقم جهة الاتصال</translation>
    </message>
    <message>
        <source>Window state</source>
        <translation>حالة النافذة</translation>
    </message>
    <message>
        <source>Marketing</source>
        <translation>التسويق</translation>
    </message>
    <message>
        <source>Assignee</source>
        <translation>المسؤول</translation>
    </message>
    <message>
        <source>Conversation status</source>
        <translation>حالة المحادثة</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>الاسم</translation>
    </message>
    <message>
        <source>Number</source>
        <translation>الرقم</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>الحالة</translation>
    </message>
    <message>
        <source>Window</source>
        <translation>النافذة</translation>
    </message>
    <message>
        <source>Assign to me</source>
        <translation>إسنادها إليّ</translation>
    </message>
    <message>
        <source>Assign to…</source>
        <translation>إسناد إلى…</translation>
    </message>
    <message>
        <source>Assign to someone else</source>
        <translation>إسناد إلى شخص آخر</translation>
    </message>
    <message>
        <source>Labels</source>
        <translation>التصنيفات</translation>
    </message>
    <message>
        <source>Labels of the conversation</source>
        <translation>تصنيفات المحادثة</translation>
    </message>
    <message>
        <source>No labels</source>
        <translation>لا توجد تصنيفات</translation>
    </message>
    <message>
        <source>Add a label…</source>
        <translation>أضف تصنيفًا…</translation>
    </message>
    <message>
        <source>Add a label</source>
        <translation>إضافة تصنيف</translation>
    </message>
    <message>
        <source>Selected message</source>
        <translation>الرسالة المحددة</translation>
    </message>
    <message>
        <source>Purpose</source>
        <translation>الغرض</translation>
    </message>
    <message>
        <source>Trigger</source>
        <translation>المصدر</translation>
    </message>
    <message>
        <source>State</source>
        <translation>الحالة</translation>
    </message>
    <message>
        <source>Message key</source>
        <translation>مفتاح الرسالة</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>الخطأ</translation>
    </message>
    <message>
        <source>Key</source>
        <translation>المفتاح</translation>
    </message>
    <message>
        <source>Problem</source>
        <translation>المشكلة</translation>
    </message>
    <message>
        <source>Link to message…</source>
        <translation>ربط برسالة…</translation>
    </message>
    <message>
        <source>Link reply to a message</source>
        <translation>ربط الرد برسالة</translation>
    </message>
    <message>
        <source>Give back</source>
        <translation>إرجاع</translation>
    </message>
    <message>
        <source>Give the conversation back</source>
        <translation>إرجاع المحادثة</translation>
    </message>
    <message>
        <source>Assigned to {name}: a supervisor can reassign it.</source>
        <translation>مُسندة إلى {name}: يمكن للمشرف إعادة إسنادها.</translation>
    </message>
    <message>
        <source>(no profile name)</source>
        <translation>(بلا اسم ملف شخصي)</translation>
    </message>
    <message>
        <source>WhatsApp id {id}</source>
        <translation>معرّف واتساب {id}</translation>
    </message>
    <message>
        <source>open, {countdown}</source>
        <translation>مفتوحة، {countdown}</translation>
    </message>
    <message>
        <source>closed: only templates can be sent</source>
        <translation>مغلقة: يمكن إرسال القوالب فقط</translation>
    </message>
    <message>
        <source>{mark}: service replies still go</source>
        <translation>{mark}: ردود الخدمة ما زالت تصل</translation>
    </message>
    <message>
        <source>allowed (no opt-out)</source>
        <translation>مسموح (لا إلغاء اشتراك)</translation>
    </message>
    <message>
        <source>nobody</source>
        <translation>لا أحد</translation>
    </message>
    <message>
        <source>customer message</source>
        <translation>رسالة العميل</translation>
    </message>
    <message>
        <source>answers {message}</source>
        <translation>ترد على {message}</translation>
    </message>
    <message>
        <source>internal note</source>
        <translation>ملاحظة داخلية</translation>
    </message>
    <message>
        <source>by {author}</source>
        <translation>بواسطة {author}</translation>
    </message>
    <message>
        <source>seen by the team only, never sent to the customer</source>
        <translation>يراها الفريق فقط، ولا تُرسل إلى العميل أبدًا</translation>
    </message>
    <message>
        <source>note {number}</source>
        <translation>ملاحظة {number}</translation>
    </message>
    <message>
        <source>Remove label {label}</source>
        <translation>إزالة التصنيف {label}</translation>
    </message>
    <message>
        <source>Remove the label “{label}”</source>
        <translation>إزالة التصنيف «{label}»</translation>
    </message>
</context>
<context>
    <name>HealthView</name>
    <message>
        <source>Sending for over 1 min</source>
        <translation>قيد الإرسال منذ أكثر من دقيقة</translation>
    </message>
    <message>
        <source>rows claimed but not answered for a minute</source>
        <translation>صفوف محجوزة بلا رد منذ دقيقة</translation>
    </message>
    <message>
        <source>Dedupe rejections</source>
        <translation>رفض التكرار</translation>
    </message>
    <message>
        <source>second enqueues of the same business event, refused</source>
        <translation>إدراجات ثانية لنفس حدث العمل، مرفوضة</translation>
    </message>
    <message>
        <source>Duplicate webhooks</source>
        <translation>إشعارات ويب مكررة</translation>
    </message>
    <message>
        <source>webhook events received again and ignored</source>
        <translation>أحداث إشعارات ويب وصلت مجددًا وتم تجاهلها</translation>
    </message>
    <message>
        <source>Unattributed replies</source>
        <translation>ردود غير منسوبة</translation>
    </message>
    <message>
        <source>replies waiting in the work queue</source>
        <translation>ردود تنتظر في قائمة العمل</translation>
    </message>
    <message>
        <source>Sent → delivered (last hour)</source>
        <translation>مُرسلة ← مُسلّمة (آخر ساعة)</translation>
    </message>
    <message>
        <source>median and 95th percentile</source>
        <translation>الوسيط والمئين 95</translation>
    </message>
    <message>
        <source>Outgoing webhooks</source>
        <translation>إشعارات الويب الصادرة</translation>
    </message>
    <message>
        <source>subscriptions off after 3 days of failures / deliveries waiting</source>
        <translation>اشتراكات متوقفة بعد 3 أيام من الإخفاق / عمليات تسليم منتظرة</translation>
    </message>
    <message>
        <source>Last backup</source>
        <translation>آخر نسخة احتياطية</translation>
    </message>
    <message>
        <source>red after two days without one (inbox db backup)</source>
        <translation>أحمر بعد يومين بلا نسخة (inbox db backup)</translation>
    </message>
    <message>
        <source>Free disk (data folder)</source>
        <translation>المساحة الحرة (مجلد البيانات)</translation>
    </message>
    <message>
        <source>red under 1 GB</source>
        <translation>أحمر دون 1 غيغابايت</translation>
    </message>
    <message>
        <source>never</source>
        <translation>أبدًا</translation>
    </message>
    <message>
        <source>{count} min ago</source>
        <translation>منذ {count} د</translation>
    </message>
    <message>
        <source>{count} h ago</source>
        <translation>منذ {count} س</translation>
    </message>
    <message numerus="yes">
        <source>%n day(s) ago</source>
        <translation>
            <numerusform>اليوم</numerusform>
            <numerusform>منذ يوم واحد</numerusform>
            <numerusform>منذ يومين</numerusform>
            <numerusform>منذ %Ln أيام</numerusform>
            <numerusform>منذ %Ln يومًا</numerusform>
            <numerusform>منذ %Ln يوم</numerusform>
        </translation>
    </message>
    <message>
        <source>{size} GB</source>
        <translation>{size} غيغابايت</translation>
    </message>
    <message>
        <source>{size} MB</source>
        <translation>{size} ميغابايت</translation>
    </message>
    <message>
        <source>{size} KB</source>
        <translation>{size} ك.ب</translation>
    </message>
    <message numerus="yes">
        <source>%n byte(s)</source>
        <translation>
            <numerusform>لا بايتات</numerusform>
            <numerusform>بايت واحد</numerusform>
            <numerusform>بايتان</numerusform>
            <numerusform>%Ln بايتات</numerusform>
            <numerusform>%Ln بايتًا</numerusform>
            <numerusform>%Ln بايت</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n file(s)</source>
        <translation>
            <numerusform>لا ملفات</numerusform>
            <numerusform>ملف واحد</numerusform>
            <numerusform>ملفان</numerusform>
            <numerusform>%Ln ملفات</numerusform>
            <numerusform>%Ln ملفًا</numerusform>
            <numerusform>%Ln ملف</numerusform>
        </translation>
    </message>
    <message>
        <source>{count} downloading</source>
        <translation>{count} قيد التنزيل</translation>
    </message>
    <message>
        <source>{count} could not be downloaded</source>
        <translation>{count} تعذّر تنزيلها</translation>
    </message>
    <message>
        <source>Media kept: {files}, {size}</source>
        <translation>الوسائط المحفوظة: {files}، {size}</translation>
    </message>
    <message>
        <source>Queue depth by state</source>
        <translation>عمق قائمة الانتظار حسب الحالة</translation>
    </message>
    <message>
        <source>{state} messages</source>
        <translation>رسائل بحالة {state}</translation>
    </message>
    <message>
        <source>Business number (as Meta rates it)</source>
        <translation>رقم النشاط التجاري (كما تقيّمه Meta)</translation>
    </message>
    <message>
        <source>not read yet</source>
        <translation>لم يُقرأ بعد</translation>
    </message>
    <message>
        <source>Quality rating</source>
        <translation>تقييم الجودة</translation>
    </message>
    <message>
        <source>Messaging limit</source>
        <translation>حد المراسلة</translation>
    </message>
    <message>
        <source>Quality warning</source>
        <translation>تحذير الجودة</translation>
    </message>
    <message>
        <source>Quality and limit history</source>
        <translation>سجل الجودة والحد</translation>
    </message>
    <message>
        <source>Sent → delivered gap (median per interval)</source>
        <translation>الفاصل بين الإرسال والتسليم (الوسيط لكل فترة)</translation>
    </message>
    <message>
        <source>seconds</source>
        <translation>ثوانٍ</translation>
    </message>
    <message>
        <source>Send rate</source>
        <translation>معدل الإرسال</translation>
    </message>
    <message>
        <source>messages / minute</source>
        <translation>رسائل / دقيقة</translation>
    </message>
    <message>
        <source>Media kept: none yet</source>
        <translation>الوسائط المحفوظة: لا شيء بعد</translation>
    </message>
    <message>
        <source>{p50} s / {p95} s</source>
        <translation>{p50} ث / {p95} ث</translation>
    </message>
    <message>
        <source>{disabled} off / {waiting}</source>
        <translation>{disabled} متوقفة / {waiting}</translation>
    </message>
    <message>
        <source>Health measures unavailable: {reason}</source>
        <translation>مقاييس الحالة غير متاحة: {reason}</translation>
    </message>
</context>
<context>
    <name>InboxView</name>
    <message>
        <source>Mine</source>
        <translation>محادثاتي</translation>
    </message>
    <message>
        <source>Unassigned</source>
        <translation>غير مُسندة</translation>
    </message>
    <message>
        <source>All</source>
        <translation>الكل</translation>
    </message>
    <message>
        <source>Open and pending</source>
        <translation>المفتوحة والمعلّقة</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>المفتوحة</translation>
    </message>
    <message>
        <source>Pending</source>
        <translation>المعلّقة</translation>
    </message>
    <message>
        <source>Snoozed</source>
        <translation>المؤجلة</translation>
    </message>
    <message>
        <source>Resolved</source>
        <translation>المحلولة</translation>
    </message>
    <message>
        <source>All statuses</source>
        <translation>كل الحالات</translation>
    </message>
    <message>
        <source>Any window</source>
        <translation>أي نافذة</translation>
    </message>
    <message>
        <source>Window open</source>
        <translation>النافذة مفتوحة</translation>
    </message>
    <message>
        <source>Window closing within the hour</source>
        <translation>النافذة تُغلق خلال ساعة</translation>
    </message>
    <message>
        <source>Window closed</source>
        <translation>النافذة مغلقة</translation>
    </message>
    <message>
        <source>Any label</source>
        <translation>أي تصنيف</translation>
    </message>
    <message>
        <source>Show the conversations: {view}</source>
        <translation>عرض المحادثات: {view}</translation>
    </message>
    <message>
        <source>Show conversations by status</source>
        <translation>عرض المحادثات حسب الحالة</translation>
    </message>
    <message>
        <source>Search name or number  (Ctrl+K)</source>
        <translation>ابحث بالاسم أو الرقم  (Ctrl+K)</translation>
    </message>
    <message>
        <source>Search conversations</source>
        <translation>البحث في المحادثات</translation>
    </message>
    <message>
        <source>Filter by window</source>
        <translation>التصفية حسب النافذة</translation>
    </message>
    <message>
        <source>Filter by label</source>
        <translation>التصفية حسب التصنيف</translation>
    </message>
    <message>
        <source>Conversations</source>
        <translation>المحادثات</translation>
    </message>
    <message>
        <source>Select a conversation</source>
        <translation>اختر محادثة</translation>
    </message>
    <message>
        <source>Colleagues in this conversation</source>
        <translation>الزملاء في هذه المحادثة</translation>
    </message>
    <message>
        <source>Conversation status</source>
        <translation>حالة المحادثة</translation>
    </message>
    <message>
        <source>Resolve</source>
        <translation>حل</translation>
    </message>
    <message>
        <source>Mark pending</source>
        <translation>تعليق</translation>
    </message>
    <message>
        <source>Reopen</source>
        <translation>إعادة فتح</translation>
    </message>
    <message>
        <source>Snooze</source>
        <translation>تأجيل</translation>
    </message>
    <message>
        <source>Snooze the conversation</source>
        <translation>تأجيل المحادثة</translation>
    </message>
    <message>
        <source>Snooze until later  ({shortcut})</source>
        <translation>تأجيل إلى وقت لاحق  ({shortcut})</translation>
    </message>
    <message>
        <source>Thread</source>
        <translation>سلسلة الرسائل</translation>
    </message>
    <message>
        <source>Mark the conversation pending</source>
        <translation>تعليق المحادثة</translation>
    </message>
    <message>
        <source>{action} the conversation</source>
        <translation>{action}: المحادثة</translation>
    </message>
    <message>
        <source>That message is no longer in this conversation&apos;s thread.</source>
        <translation>لم تعد هذه الرسالة في سلسلة هذه المحادثة.</translation>
    </message>
    <message>
        <source>Reply queued.</source>
        <translation>الرد في قائمة الانتظار.</translation>
    </message>
    <message>
        <source>Note added.</source>
        <translation>أُضيفت الملاحظة.</translation>
    </message>
    <message>
        <source>Your user name is not known yet: try again in a moment.</source>
        <translation>اسم المستخدم الخاص بك غير معروف بعد: حاول مرة أخرى بعد قليل.</translation>
    </message>
    <message>
        <source>Assign conversation</source>
        <translation>إسناد المحادثة</translation>
    </message>
    <message>
        <source>Assign to user (empty to unassign):</source>
        <translation>الإسناد إلى المستخدم (اتركه فارغًا لإلغاء الإسناد):</translation>
    </message>
    <message>
        <source>Assigned to {name}.</source>
        <translation>أُسندت إلى {name}.</translation>
    </message>
    <message>
        <source>nobody</source>
        <translation>لا أحد</translation>
    </message>
    <message>
        <source>Reply linked.</source>
        <translation>تم ربط الرد.</translation>
    </message>
</context>
<context>
    <name>LinkChooser</name>
    <message>
        <source>The messages it may answer, newest first</source>
        <translation>الرسائل التي قد يرد عليها، الأحدث أولًا</translation>
    </message>
    <message>
        <source>Recent messages to this customer</source>
        <translation>الرسائل الأخيرة إلى هذا العميل</translation>
    </message>
    <message>
        <source>sent {time}</source>
        <translation>أُرسلت {time}</translation>
    </message>
    <message>
        <source>not sent yet</source>
        <translation>لم تُرسل بعد</translation>
    </message>
    <message>
        <source>Message to link to</source>
        <translation>الرسالة المراد الربط بها</translation>
    </message>
    <message>
        <source>Link to this message</source>
        <translation>ربط بهذه الرسالة</translation>
    </message>
    <message>
        <source>Link to the chosen message</source>
        <translation>ربط بالرسالة المختارة</translation>
    </message>
    <message>
        <source>Mark as new topic</source>
        <translation>وضع علامة موضوع جديد</translation>
    </message>
    <message>
        <source>Loading recent messages…</source>
        <translation>جارٍ تحميل الرسائل الأخيرة…</translation>
    </message>
    <message>
        <source>Saving…</source>
        <translation>جارٍ الحفظ…</translation>
    </message>
</context>
<context>
    <name>LinkDialog</name>
    <message>
        <source>Link reply to a message</source>
        <translation>ربط الرد برسالة</translation>
    </message>
</context>
<context>
    <name>LinkPicker</name>
    <message>
        <source>No recent messages to this customer: mark it as a new topic.</source>
        <translation>لا توجد رسائل حديثة إلى هذا العميل: ضع عليه علامة موضوع جديد.</translation>
    </message>
    <message>
        <source>Linked.</source>
        <translation>تم الربط.</translation>
    </message>
    <message>
        <source>Marked as a new topic.</source>
        <translation>وُضعت علامة موضوع جديد.</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>System colours</source>
        <translation>ألوان النظام</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>فاتح</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>داكن</translation>
    </message>
    <message>
        <source>New reply from {name}</source>
        <translation>رد جديد من {name}</translation>
    </message>
    <message>
        <source>{name} is still waiting for an answer: their window closes within the hour</source>
        <translation>لا يزال {name} ينتظر ردًا: تُغلق نافذته خلال ساعة</translation>
    </message>
    <message>
        <source>{author} mentioned you in a note on {name}</source>
        <translation>ذكرك {author} في ملاحظة على {name}</translation>
    </message>
    <message>
        <source>WhatsApp shared inbox</source>
        <translation>صندوق واتساب المشترك</translation>
    </message>
    <message>
        <source>Connection status</source>
        <translation>حالة الاتصال</translation>
    </message>
    <message>
        <source>Sections</source>
        <translation>الأقسام</translation>
    </message>
    <message>
        <source>&amp;Inbox</source>
        <translation>&amp;صندوق الوارد</translation>
    </message>
    <message>
        <source>Work queue</source>
        <translation>قائمة العمل</translation>
    </message>
    <message>
        <source>Supervisor</source>
        <translation>الإشراف</translation>
    </message>
    <message>
        <source>Health</source>
        <translation>الحالة الصحية</translation>
    </message>
    <message>
        <source>Reports</source>
        <translation>التقارير</translation>
    </message>
    <message>
        <source>Search messages</source>
        <translation>البحث في الرسائل</translation>
    </message>
    <message>
        <source>Search words in every conversation</source>
        <translation>البحث عن كلمات في كل المحادثات</translation>
    </message>
    <message>
        <source>Search words in every conversation  ({shortcut})</source>
        <translation>البحث عن كلمات في كل المحادثات  ({shortcut})</translation>
    </message>
    <message>
        <source>Canned replies</source>
        <translation>الردود الجاهزة</translation>
    </message>
    <message>
        <source>The team&apos;s saved replies: type / and a shortcut in the composer</source>
        <translation>ردود الفريق المحفوظة: اكتب / واختصارًا في محرر الرد</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>اللغة</translation>
    </message>
    <message>
        <source>The language of the inbox</source>
        <translation>لغة صندوق الوارد</translation>
    </message>
    <message>
        <source>Colour scheme</source>
        <translation>نظام الألوان</translation>
    </message>
    <message>
        <source>Shortcuts</source>
        <translation>الاختصارات</translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>اختصارات لوحة المفاتيح</translation>
    </message>
    <message>
        <source>Every keyboard shortcut  ({shortcut})</source>
        <translation>كل اختصارات لوحة المفاتيح  ({shortcut})</translation>
    </message>
    <message>
        <source>Connecting…</source>
        <translation>جارٍ الاتصال…</translation>
    </message>
    <message>
        <source>Could not load: {reason}</source>
        <translation>تعذّر التحميل: {reason}</translation>
    </message>
    <message>
        <source>Connected: live updates on.</source>
        <translation>متصل: التحديثات المباشرة مفعّلة.</translation>
    </message>
    <message>
        <source>Work queue ({count})</source>
        <translation>قائمة العمل ({count})</translation>
    </message>
    <message>
        <source>Supervisor ({count})</source>
        <translation>الإشراف ({count})</translation>
    </message>
    <message>
        <source>Connection to the backend lost — reconnecting…  ({reason})</source>
        <translation>انقطع الاتصال بالخادم — جارٍ إعادة الاتصال…  ({reason})</translation>
    </message>
    <message>
        <source>Reconnected; nothing was missed.</source>
        <translation>أُعيد الاتصال؛ لم يفت شيء.</translation>
    </message>
    <message>
        <source>The inbox was restored from a backup; everything shown was loaded again.</source>
        <translation>تمت استعادة صندوق الوارد من نسخة احتياطية؛ وأُعيد تحميل كل ما يُعرض.</translation>
    </message>
    <message>
        <source>A colleague</source>
        <translation>زميل</translation>
    </message>
    <message>
        <source>a customer</source>
        <translation>عميل</translation>
    </message>
</context>
<context>
    <name>MediaActions</name>
    <message>
        <source>Save file</source>
        <translation>حفظ الملف</translation>
    </message>
    <message>
        <source>The file is still downloading from WhatsApp.</source>
        <translation>لا يزال الملف قيد التنزيل من واتساب.</translation>
    </message>
    <message>
        <source>Photo</source>
        <translation>صورة</translation>
    </message>
    <message>
        <source>Stopped the voice note.</source>
        <translation>أُوقفت الرسالة الصوتية.</translation>
    </message>
    <message>
        <source>Could not play the voice note: {reason}</source>
        <translation>تعذّر تشغيل الرسالة الصوتية: {reason}</translation>
    </message>
    <message>
        <source>Downloading the file again…</source>
        <translation>جارٍ تنزيل الملف مجددًا…</translation>
    </message>
    <message>
        <source>Playing the voice note…</source>
        <translation>جارٍ تشغيل الرسالة الصوتية…</translation>
    </message>
    <message>
        <source>Saved {name}.</source>
        <translation>تم حفظ {name}.</translation>
    </message>
    <message>
        <source>Could not open the file: {reason}</source>
        <translation>تعذّر فتح الملف: {reason}</translation>
    </message>
</context>
<context>
    <name>PictureViewer</name>
    <message>
        <source>Picture</source>
        <translation>الصورة</translation>
    </message>
</context>
<context>
    <name>ReportTableModel</name>
    <message>
        <source>{count} s</source>
        <translation>{count} ث</translation>
    </message>
    <message>
        <source>{count} min</source>
        <translation>{count} د</translation>
    </message>
    <message>
        <source>{hours} h {minutes} min</source>
        <translation>{hours} س {minutes} د</translation>
    </message>
    <message>
        <source>{count} h</source>
        <translation>{count} س</translation>
    </message>
    <message>
        <source>{days} d {hours} h</source>
        <translation>{days} ي {hours} س</translation>
    </message>
    <message>
        <source>{count} d</source>
        <translation>{count} ي</translation>
    </message>
    <message>
        <source>Person</source>
        <translation>الشخص</translation>
    </message>
    <message>
        <source>Replies</source>
        <translation>الردود</translation>
    </message>
    <message>
        <source>Resolved</source>
        <translation>المحلولة</translation>
    </message>
    <message>
        <source>First response (median)</source>
        <translation>أول رد (الوسيط)</translation>
    </message>
    <message>
        <source>First response (90 %)</source>
        <translation>أول رد (90 %)</translation>
    </message>
    <message>
        <source>Purpose</source>
        <translation>الغرض</translation>
    </message>
    <message>
        <source>Sent</source>
        <translation>المُرسلة</translation>
    </message>
    <message>
        <source>Delivered</source>
        <translation>المُسلّمة</translation>
    </message>
    <message>
        <source>Read</source>
        <translation>المقروءة</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>الفاشلة</translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation>المجهولة</translation>
    </message>
    <message>
        <source>Replied</source>
        <translation>التي رُدّ عليها</translation>
    </message>
</context>
<context>
    <name>ReportsView</name>
    <message>
        <source>Today</source>
        <translation>اليوم</translation>
    </message>
    <message>
        <source>Yesterday</source>
        <translation>أمس</translation>
    </message>
    <message>
        <source>Last 7 days</source>
        <translation>آخر 7 أيام</translation>
    </message>
    <message>
        <source>Last 30 days</source>
        <translation>آخر 30 يومًا</translation>
    </message>
    <message>
        <source>This month</source>
        <translation>هذا الشهر</translation>
    </message>
    <message>
        <source>Custom range</source>
        <translation>نطاق مخصص</translation>
    </message>
    <message>
        <source>Days or hours</source>
        <translation>الأيام أو الساعات</translation>
    </message>
    <message>
        <source>People</source>
        <translation>الأشخاص</translation>
    </message>
    <message>
        <source>Purposes</source>
        <translation>الأغراض</translation>
    </message>
    <message>
        <source>Report range</source>
        <translation>نطاق التقرير</translation>
    </message>
    <message>
        <source>From day</source>
        <translation>من يوم</translation>
    </message>
    <message>
        <source>To day (included)</source>
        <translation>إلى يوم (ضمنًا)</translation>
    </message>
    <message>
        <source>Report periods</source>
        <translation>فترات التقرير</translation>
    </message>
    <message>
        <source>By day</source>
        <translation>حسب اليوم</translation>
    </message>
    <message>
        <source>By hour</source>
        <translation>حسب الساعة</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>تحديث</translation>
    </message>
    <message>
        <source>Export CSV</source>
        <translation>تصدير CSV</translation>
    </message>
    <message>
        <source>Export the report as CSV</source>
        <translation>تصدير التقرير بصيغة CSV</translation>
    </message>
    <message>
        <source>Range</source>
        <translation>النطاق</translation>
    </message>
    <message>
        <source>to</source>
        <translation>إلى</translation>
    </message>
    <message>
        <source>Messages per period</source>
        <translation>الرسائل لكل فترة</translation>
    </message>
    <message>
        <source>First response time per period</source>
        <translation>زمن أول رد لكل فترة</translation>
    </message>
    <message>
        <source>Per person</source>
        <translation>لكل شخص</translation>
    </message>
    <message>
        <source>Per purpose (business messages queued in the range)</source>
        <translation>لكل غرض (رسائل العمل المُدرجة في النطاق)</translation>
    </message>
    <message>
        <source>The report&apos;s first day is after its last day.</source>
        <translation>اليوم الأول في التقرير يأتي بعد يومه الأخير.</translation>
    </message>
    <message>
        <source>Report unavailable: {reason}</source>
        <translation>التقرير غير متاح: {reason}</translation>
    </message>
    <message>
        <source>{inbound} in · {outbound} out · {resolved} resolved</source>
        <translation>{inbound} واردة · {outbound} صادرة · {resolved} محلولة</translation>
    </message>
    <message>
        <source>Messages</source>
        <translation>الرسائل</translation>
    </message>
    <message>
        <source>From customers</source>
        <translation>من العملاء</translation>
    </message>
    <message>
        <source>From the business</source>
        <translation>من النشاط التجاري</translation>
    </message>
    <message>
        <source>messages</source>
        <translation>رسائل</translation>
    </message>
    <message>
        <source>First response ({unit})</source>
        <translation>أول رد ({unit})</translation>
    </message>
    <message>
        <source>Median</source>
        <translation>الوسيط</translation>
    </message>
    <message>
        <source>90 % within</source>
        <translation>90 % خلال</translation>
    </message>
    <message>
        <source>CSV files (*.csv)</source>
        <translation>ملفات CSV (*.csv)</translation>
    </message>
    <message>
        <source>Saved {path}</source>
        <translation>حُفظ في {path}</translation>
    </message>
    <message>
        <source>Could not export the report: {reason}</source>
        <translation>تعذّر تصدير التقرير: {reason}</translation>
    </message>
    <message>
        <source>seconds</source>
        <translation>ثوانٍ</translation>
    </message>
    <message>
        <source>minutes</source>
        <translation>دقائق</translation>
    </message>
    <message>
        <source>hours</source>
        <translation>ساعات</translation>
    </message>
</context>
<context>
    <name>SearchDialog</name>
    <message>
        <source>Type words to find them in every conversation: any case, accents optional.</source>
        <translation>اكتب كلمات للعثور عليها في كل المحادثات: دون تمييز حالة الأحرف، والتشكيل اختياري.</translation>
    </message>
    <message>
        <source>customer wrote</source>
        <translation>كتب العميل</translation>
    </message>
    <message>
        <source>we sent</source>
        <translation>أرسلنا</translation>
    </message>
    <message>
        <source>Search for at most {count} characters.</source>
        <translation>ابحث بما لا يزيد عن {count} حرفًا.</translation>
    </message>
    <message>
        <source>Searching…</source>
        <translation>جارٍ البحث…</translation>
    </message>
    <message>
        <source>No message contains “{query}”.</source>
        <translation>لا توجد رسالة تحتوي على «{query}».</translation>
    </message>
    <message numerus="yes">
        <source>%n+ messages found.</source>
        <translation>
            <numerusform>أكثر من %Ln رسالة</numerusform>
            <numerusform>أكثر من رسالة واحدة</numerusform>
            <numerusform>أكثر من رسالتين</numerusform>
            <numerusform>أكثر من %Ln رسائل</numerusform>
            <numerusform>أكثر من %Ln رسالة</numerusform>
            <numerusform>أكثر من %Ln رسالة</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n message(s) found.</source>
        <translation>
            <numerusform>لم يُعثر على رسائل.</numerusform>
            <numerusform>عُثر على رسالة واحدة.</numerusform>
            <numerusform>عُثر على رسالتين.</numerusform>
            <numerusform>عُثر على %Ln رسائل.</numerusform>
            <numerusform>عُثر على %Ln رسالة.</numerusform>
            <numerusform>عُثر على %Ln رسالة.</numerusform>
        </translation>
    </message>
    <message>
        <source>Search failed: {reason}</source>
        <translation>فشل البحث: {reason}</translation>
    </message>
    <message>
        <source>Search messages</source>
        <translation>البحث في الرسائل</translation>
    </message>
</context>
<context>
    <name>SearchView</name>
    <message>
        <source>Search words in every conversation…</source>
        <translation>ابحث عن كلمات في كل المحادثات…</translation>
    </message>
    <message>
        <source>Search messages</source>
        <translation>البحث في الرسائل</translation>
    </message>
    <message>
        <source>Messages found</source>
        <translation>الرسائل التي عُثر عليها</translation>
    </message>
    <message>
        <source>More results</source>
        <translation>مزيد من النتائج</translation>
    </message>
    <message>
        <source>Load more results</source>
        <translation>تحميل مزيد من النتائج</translation>
    </message>
</context>
<context>
    <name>ShortcutsDialog</name>
    <message>
        <source>Show this list of shortcuts</source>
        <translation>عرض قائمة الاختصارات هذه</translation>
    </message>
    <message>
        <source>Inbox</source>
        <translation>صندوق الوارد</translation>
    </message>
    <message>
        <source>Work queue</source>
        <translation>قائمة العمل</translation>
    </message>
    <message>
        <source>Supervisor (supervisors only)</source>
        <translation>الإشراف (للمشرفين فقط)</translation>
    </message>
    <message>
        <source>Health</source>
        <translation>الحالة الصحية</translation>
    </message>
    <message>
        <source>Reports (supervisors only)</source>
        <translation>التقارير (للمشرفين فقط)</translation>
    </message>
    <message>
        <source>Search conversations by name or number</source>
        <translation>البحث في المحادثات بالاسم أو الرقم</translation>
    </message>
    <message>
        <source>Search words in every message</source>
        <translation>البحث عن كلمات في كل الرسائل</translation>
    </message>
    <message>
        <source>Send the reply or add the note</source>
        <translation>إرسال الرد أو إضافة الملاحظة</translation>
    </message>
    <message>
        <source>Switch between a reply and an internal note</source>
        <translation>التبديل بين رد وملاحظة داخلية</translation>
    </message>
    <message>
        <source>Resolve the conversation</source>
        <translation>حل المحادثة</translation>
    </message>
    <message>
        <source>Snooze the conversation</source>
        <translation>تأجيل المحادثة</translation>
    </message>
    <message>
        <source>Mark the conversation pending</source>
        <translation>تعليق المحادثة</translation>
    </message>
    <message>
        <source>Reopen the conversation</source>
        <translation>إعادة فتح المحادثة</translation>
    </message>
    <message>
        <source>Move to the next or previous control</source>
        <translation>الانتقال إلى عنصر التحكم التالي أو السابق</translation>
    </message>
    <message>
        <source>Press the focused button, open the chosen item</source>
        <translation>الضغط على الزر المحدد، فتح العنصر المختار</translation>
    </message>
    <message>
        <source>In the composer: insert a canned reply by its shortcut</source>
        <translation>في محرر الرد: إدراج رد جاهز باختصاره</translation>
    </message>
    <message>
        <source>Close a dialog without changing anything</source>
        <translation>إغلاق نافذة حوار دون تغيير أي شيء</translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>اختصارات لوحة المفاتيح</translation>
    </message>
    <message>
        <source>Everything in the inbox can be done with the keyboard alone.</source>
        <translation>يمكن فعل كل شيء في صندوق الوارد بلوحة المفاتيح وحدها.</translation>
    </message>
    <message>
        <source>Shortcuts and what they do</source>
        <translation>الاختصارات ووظائفها</translation>
    </message>
    <message>
        <source>Keys</source>
        <translation>المفاتيح</translation>
    </message>
    <message>
        <source>What it does</source>
        <translation>الوظيفة</translation>
    </message>
</context>
<context>
    <name>SignInDialog</name>
    <message>
        <source>The sign-in could not be checked: {reason}</source>
        <translation>تعذّر التحقق من تسجيل الدخول: {reason}</translation>
    </message>
    <message>
        <source>The office&apos;s server does not accept this invite any more (a newer invite was made for this user, or the user was disabled). Ask whoever runs the inbox for a new invite.</source>
        <translation>لم يعد خادم المكتب يقبل هذه الدعوة (أُنشئت دعوة أحدث لهذا المستخدم، أو تم تعطيل المستخدم). اطلب دعوة جديدة ممن يدير صندوق الوارد.</translation>
    </message>
    <message>
        <source>Cannot reach the office&apos;s inbox at {url}. Check that the office PC is on, that `inbox serve` runs there, and that this PC is on the office network.</source>
        <translation>تعذّر الوصول إلى صندوق المكتب على {url}. تأكد من أن حاسوب المكتب يعمل، وأن `inbox serve` يعمل عليه، وأن هذا الحاسوب متصل بشبكة المكتب.</translation>
    </message>
    <message>
        <source>The office&apos;s server refused the sign-in: {reason}</source>
        <translation>رفض خادم المكتب تسجيل الدخول: {reason}</translation>
    </message>
    <message>
        <source>Sign in to the shared inbox</source>
        <translation>تسجيل الدخول إلى الصندوق المشترك</translation>
    </message>
    <message>
        <source>Invite</source>
        <translation>الدعوة</translation>
    </message>
    <message>
        <source>inbox://… as printed by `inbox user invite NAME`</source>
        <translation>inbox://… كما يطبعها `inbox user invite NAME`</translation>
    </message>
    <message>
        <source>Backend URL</source>
        <translation>عنوان الخادم</translation>
    </message>
    <message>
        <source>API token</source>
        <translation>رمز الواجهة البرمجية</translation>
    </message>
    <message>
        <source>Your user name</source>
        <translation>اسم المستخدم الخاص بك</translation>
    </message>
    <message>
        <source>as given to `inbox user add` (for Assign to me)</source>
        <translation>كما أُعطي لـ `inbox user add` (لأجل «إسنادها إليّ»)</translation>
    </message>
    <message>
        <source>On another desk, paste the invite from the office PC. On the office PC itself, the token printed by `inbox user add NAME` is enough. It is remembered on this computer.</source>
        <translation>على مكتب آخر، الصق الدعوة من حاسوب المكتب. على حاسوب المكتب نفسه يكفي الرمز الذي يطبعه `inbox user add NAME`. يُحفظ على هذا الحاسوب.</translation>
    </message>
    <message>
        <source>Inbox servers on this network</source>
        <translation>خوادم الصندوق على هذه الشبكة</translation>
    </message>
    <message>
        <source>Inbox servers on this network (only an invite makes one trusted):</source>
        <translation>خوادم الصندوق على هذه الشبكة (الدعوة وحدها تجعل أحدها موثوقًا):</translation>
    </message>
    <message>
        <source>Sign-in problem</source>
        <translation>مشكلة في تسجيل الدخول</translation>
    </message>
    <message>
        <source>{name} — {address} (certificate {fingerprint}…)</source>
        <translation>{name} — {address} (الشهادة {fingerprint}…)</translation>
    </message>
    <message>
        <source>A server on the office network is trusted through its invite: paste the invite.</source>
        <translation>يُوثق بخادم على شبكة المكتب عبر دعوته: الصق الدعوة.</translation>
    </message>
    <message>
        <source>Checking the office&apos;s server…</source>
        <translation>جارٍ التحقق من خادم المكتب…</translation>
    </message>
</context>
<context>
    <name>SupervisorModel</name>
    <message>
        <source>customer</source>
        <translation>عميل</translation>
    </message>
    <message>
        <source>{mark} {state}  ·  {who}  ·  {purpose}  ·  {age} old</source>
        <translation>{mark} {state}  ·  {who}  ·  {purpose}  ·  منذ {age}</translation>
    </message>
</context>
<context>
    <name>SupervisorView</name>
    <message>
        <source>If the first attempt did reach {customer}, they will get this message twice.</source>
        <translation>إذا وصلت المحاولة الأولى إلى {customer}، فسيستلم هذه الرسالة مرتين.</translation>
    </message>
    <message>
        <source>{customer} has not received it: it was held, not sent.</source>
        <translation>لم يستلمها {customer}: كانت محتجزة ولم تُرسل.</translation>
    </message>
    <message>
        <source>Send this message to {customer} again?</source>
        <translation>هل ترسل هذه الرسالة إلى {customer} مرة أخرى؟</translation>
    </message>
    <message>
        <source>Resend?</source>
        <translation>إعادة الإرسال؟</translation>
    </message>
    <message>
        <source>Mark as sent?</source>
        <translation>وضع علامة «أُرسلت»؟</translation>
    </message>
    <message>
        <source>Record the message to {customer} as sent, without sending anything?

Choose this only if you know {customer} received it; otherwise they will never get it.</source>
        <translation>هل تسجّل الرسالة إلى {customer} على أنها أُرسلت، دون إرسال أي شيء؟

اختر هذا فقط إذا كنت تعلم أن {customer} استلمها؛ وإلا فلن يستلمها أبدًا.</translation>
    </message>
    <message>
        <source>Cancel the message?</source>
        <translation>إلغاء الرسالة؟</translation>
    </message>
    <message>
        <source>Cancel the message to {customer}? It will not be sent again.

If an earlier attempt reached {customer}, they keep that one copy.</source>
        <translation>هل تلغي الرسالة إلى {customer}؟ لن تُرسل مرة أخرى.

إذا وصلت محاولة سابقة إلى {customer}، فسيحتفظ بتلك النسخة الوحيدة.</translation>
    </message>
    <message>
        <source>Sends needing a decision</source>
        <translation>إرسالات تحتاج إلى قرار</translation>
    </message>
    <message>
        <source>Select a send on the left.</source>
        <translation>اختر إرسالًا من القائمة.</translation>
    </message>
    <message>
        <source>Customer</source>
        <translation>العميل</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>الرسالة</translation>
    </message>
    <message>
        <source>Purpose</source>
        <translation>الغرض</translation>
    </message>
    <message>
        <source>State</source>
        <translation>الحالة</translation>
    </message>
    <message>
        <source>Attempts</source>
        <translation>المحاولات</translation>
    </message>
    <message>
        <source>Age</source>
        <translation>العمر</translation>
    </message>
    <message>
        <source>Last error</source>
        <translation>آخر خطأ</translation>
    </message>
    <message>
        <source>Key</source>
        <translation>المفتاح</translation>
    </message>
    <message>
        <source>Evidence</source>
        <translation>الأدلة</translation>
    </message>
    <message>
        <source>Mark sent</source>
        <translation>وضع علامة «أُرسلت»</translation>
    </message>
    <message>
        <source>Resend</source>
        <translation>إعادة الإرسال</translation>
    </message>
    <message>
        <source>Cancel send</source>
        <translation>إلغاء الإرسال</translation>
    </message>
    <message>
        <source>Send</source>
        <translation>إرسال</translation>
    </message>
    <message>
        <source>the customer</source>
        <translation>العميل</translation>
    </message>
    <message>
        <source>No status from WhatsApp for this send yet.</source>
        <translation>لا توجد حالة من واتساب لهذا الإرسال بعد.</translation>
    </message>
    <message>
        <source>Recorded: {key} is now {state}.</source>
        <translation>تم التسجيل: {key} الآن {state}.</translation>
    </message>
</context>
<context>
    <name>ThreadModel</name>
    <message>
        <source>We sent, {time}, {state}: {text}</source>
        <translation>أرسلنا، {time}، {state}: {text}</translation>
    </message>
    <message>
        <source>Note by {author}, {time}: {text}</source>
        <translation>ملاحظة من {author}، {time}: {text}</translation>
    </message>
    <message>
        <source>Customer, {time}, chose: {choice}</source>
        <translation>العميل، {time}، اختار: {choice}</translation>
    </message>
    <message>
        <source>Customer, {time}, not linked to a message: {text}</source>
        <translation>العميل، {time}، غير مربوطة برسالة: {text}</translation>
    </message>
    <message>
        <source>Customer, {time}, not answered: {text}</source>
        <translation>العميل، {time}، بلا رد: {text}</translation>
    </message>
    <message>
        <source>Customer, {time}: {text}</source>
        <translation>العميل، {time}: {text}</translation>
    </message>
    <message>
        <source>internal note, never sent to the customer</source>
        <translation>ملاحظة داخلية، لا تُرسل إلى العميل أبدًا</translation>
    </message>
</context>
<context>
    <name>WorkQueueModel</name>
    <message>
        <source>{time}   {sender}: {text}</source>
        <translation>{time}   {sender}: {text}</translation>
    </message>
    <message>
        <source>customer</source>
        <translation>عميل</translation>
    </message>
    <message>
        <source>(no text)</source>
        <translation>(بلا نص)</translation>
    </message>
    <message numerus="yes">
        <source>{text}   (%n messages it may answer)</source>
        <translation>
            <numerusform>{text}   (لا رسائل قد يرد عليها)</numerusform>
            <numerusform>{text}   (رسالة واحدة قد يرد عليها)</numerusform>
            <numerusform>{text}   (رسالتان قد يرد عليهما)</numerusform>
            <numerusform>{text}   (%Ln رسائل قد يرد عليها)</numerusform>
            <numerusform>{text}   (%Ln رسالة قد يرد عليها)</numerusform>
            <numerusform>{text}   (%Ln رسالة قد يرد عليها)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>WorkQueueView</name>
    <message>
        <source>Unattributed replies</source>
        <translation>ردود غير منسوبة</translation>
    </message>
    <message>
        <source>Select a reply on the left.</source>
        <translation>اختر ردًا من القائمة.</translation>
    </message>
    <message>
        <source>Reply</source>
        <translation>رد</translation>
    </message>
    <message>
        <source>These replies quote none of our messages and came after messages nobody answered yet, so nobody knows which one they answer. Link each to the message it answers (the newest is chosen), or mark it as a new topic.</source>
        <translation>هذه الردود لا تقتبس أيًا من رسائلنا ووصلت بعد رسائل لم يرد عليها أحد بعد، لذا لا أحد يعرف على أيها ترد. اربط كل رد بالرسالة التي يرد عليها (الأحدث مختارة)، أو ضع عليه علامة موضوع جديد.</translation>
    </message>
    <message>
        <source>From {sender} at {time}</source>
        <translation>من {sender} في {time}</translation>
    </message>
    <message>
        <source>customer</source>
        <translation>عميل</translation>
    </message>
</context>
<context>
    <name>delegates</name>
    <message>
        <source>Link to message…</source>
        <translation>ربط برسالة…</translation>
    </message>
    <message>
        <source>Photo</source>
        <translation>صورة</translation>
    </message>
    <message>
        <source>Sticker</source>
        <translation>ملصق</translation>
    </message>
    <message>
        <source>Voice note</source>
        <translation>رسالة صوتية</translation>
    </message>
    <message>
        <source>Video</source>
        <translation>فيديو</translation>
    </message>
    <message>
        <source>Document</source>
        <translation>مستند</translation>
    </message>
    <message>
        <source>click to view</source>
        <translation>انقر للعرض</translation>
    </message>
    <message>
        <source>click to play</source>
        <translation>انقر للتشغيل</translation>
    </message>
    <message>
        <source>click to save</source>
        <translation>انقر للحفظ</translation>
    </message>
    <message>
        <source>File</source>
        <translation>ملف</translation>
    </message>
    <message>
        <source>playing {position} / {length}</source>
        <translation>قيد التشغيل {position} / {length}</translation>
    </message>
    <message>
        <source>playing {position}</source>
        <translation>قيد التشغيل {position}</translation>
    </message>
    <message>
        <source>click to stop</source>
        <translation>انقر للإيقاف</translation>
    </message>
    <message>
        <source>{kind}  ·  downloading…</source>
        <translation>{kind}  ·  قيد التنزيل…</translation>
    </message>
    <message>
        <source>unknown reason</source>
        <translation>سبب غير معروف</translation>
    </message>
    <message>
        <source>could not download: {reason}  ·  Retry</source>
        <translation>تعذّر التنزيل: {reason}  ·  إعادة المحاولة</translation>
    </message>
    <message>
        <source>Note by {author}  ·  {time}</source>
        <translation>ملاحظة من {author}  ·  {time}</translation>
    </message>
    <message>
        <source>Failed.</source>
        <translation>فشل.</translation>
    </message>
    <message>
        <source>⚠ WhatsApp did not confirm this send: a supervisor decides whether to resend.</source>
        <translation>⚠ لم يؤكد واتساب هذا الإرسال: يقرر المشرف ما إذا كان سيُعاد إرساله.</translation>
    </message>
    <message>
        <source>Held: the customer&apos;s 24-hour window is closed; a template is needed.</source>
        <translation>محتجزة: نافذة الـ 24 ساعة للعميل مغلقة؛ يلزم قالب.</translation>
    </message>
    <message>
        <source>Chose: {choice}</source>
        <translation>اختار: {choice}</translation>
    </message>
    <message>
        <source>Reacted {emoji}</source>
        <translation>تفاعل بـ {emoji}</translation>
    </message>
    <message>
        <source>Not linked to a message</source>
        <translation>غير مربوطة برسالة</translation>
    </message>
    <message>
        <source>Loading picture…</source>
        <translation>جارٍ تحميل الصورة…</translation>
    </message>
</context>
<context>
    <name>errors</name>
    <message>
        <source>WhatsApp did not accept our access token. Someone needs to renew it.</source>
        <translation>لم يقبل واتساب رمز الوصول الخاص بنا. يجب أن يجدده أحد.</translation>
    </message>
    <message>
        <source>WhatsApp access token expired. Someone needs to renew it.</source>
        <translation>انتهت صلاحية رمز الوصول إلى واتساب. يجب أن يجدده أحد.</translation>
    </message>
    <message>
        <source>Too many requests to WhatsApp; it will be tried again later.</source>
        <translation>طلبات كثيرة جدًا إلى واتساب؛ ستُعاد المحاولة لاحقًا.</translation>
    </message>
    <message>
        <source>Sending too fast for WhatsApp; it will be tried again shortly.</source>
        <translation>الإرسال أسرع مما يقبله واتساب؛ ستُعاد المحاولة قريبًا.</translation>
    </message>
    <message>
        <source>Not sent: this customer is part of a WhatsApp experiment.</source>
        <translation>لم تُرسل: هذا العميل جزء من تجربة لدى واتساب.</translation>
    </message>
    <message>
        <source>WhatsApp had an unexpected problem sending it.</source>
        <translation>واجه واتساب مشكلة غير متوقعة في إرسالها.</translation>
    </message>
    <message>
        <source>WhatsApp was briefly unavailable.</source>
        <translation>كان واتساب غير متاح لفترة قصيرة.</translation>
    </message>
    <message>
        <source>The customer&apos;s number is our own number.</source>
        <translation>رقم العميل هو رقمنا نفسه.</translation>
    </message>
    <message>
        <source>The customer cannot receive it: not on WhatsApp, an old app, or they blocked us.</source>
        <translation>لا يستطيع العميل استلامها: ليس على واتساب، أو تطبيقه قديم، أو حظرنا.</translation>
    </message>
    <message>
        <source>This number is not on the test allow-list of our WhatsApp account.</source>
        <translation>هذا الرقم ليس في قائمة الاختبار المسموح بها لحساب واتساب الخاص بنا.</translation>
    </message>
    <message>
        <source>Our WhatsApp account is locked.</source>
        <translation>حساب واتساب الخاص بنا مقفل.</translation>
    </message>
    <message>
        <source>A billing problem with our WhatsApp account.</source>
        <translation>مشكلة في الفوترة في حساب واتساب الخاص بنا.</translation>
    </message>
    <message>
        <source>More than 24 hours since the customer last wrote: only a template can be sent.</source>
        <translation>مرّ أكثر من 24 ساعة منذ آخر رسالة من العميل: يمكن إرسال قالب فقط.</translation>
    </message>
    <message>
        <source>WhatsApp is limiting us because earlier messages were reported as spam.</source>
        <translation>يقيّدنا واتساب لأن رسائل سابقة أُبلغ عنها كرسائل مزعجة.</translation>
    </message>
    <message>
        <source>WhatsApp held it back to limit marketing to this customer; try again tomorrow.</source>
        <translation>احتجزها واتساب للحد من التسويق لهذا العميل؛ حاول غدًا.</translation>
    </message>
    <message>
        <source>The customer turned off marketing messages from us.</source>
        <translation>أوقف العميل رسائل التسويق منا.</translation>
    </message>
    <message>
        <source>WhatsApp does not support this kind of message.</source>
        <translation>لا يدعم واتساب هذا النوع من الرسائل.</translation>
    </message>
    <message>
        <source>The attached media could not be uploaded.</source>
        <translation>تعذّر رفع الوسائط المرفقة.</translation>
    </message>
    <message>
        <source>Too many messages to this customer in a short time; it will be tried again.</source>
        <translation>رسائل كثيرة جدًا لهذا العميل في وقت قصير؛ ستُعاد المحاولة.</translation>
    </message>
    <message>
        <source>The template got the wrong number of values.</source>
        <translation>تلقى القالب عددًا خاطئًا من القيم.</translation>
    </message>
    <message>
        <source>The template does not exist in this language or is not approved.</source>
        <translation>القالب غير موجود بهذه اللغة أو غير معتمد.</translation>
    </message>
    <message>
        <source>The template is paused for low quality.</source>
        <translation>القالب متوقف مؤقتًا بسبب الجودة المنخفضة.</translation>
    </message>
    <message>
        <source>The template is disabled.</source>
        <translation>القالب معطّل.</translation>
    </message>
    <message>
        <source>Our phone number is not registered with WhatsApp.</source>
        <translation>رقم هاتفنا غير مسجل في واتساب.</translation>
    </message>
    <message>
        <source>Our WhatsApp account is temporarily blocked for a policy violation.</source>
        <translation>حساب واتساب الخاص بنا محظور مؤقتًا بسبب مخالفة سياسة.</translation>
    </message>
    <message>
        <source>No answer from WhatsApp after the message went out: it may or may not have reached the customer.</source>
        <translation>لا رد من واتساب بعد خروج الرسالة: ربما وصلت إلى العميل وربما لا.</translation>
    </message>
    <message>
        <source>The sender stopped (a crash or a restart) while this message was going out: it may or may not have reached the customer.</source>
        <translation>توقف المرسِل (عطل أو إعادة تشغيل) أثناء خروج هذه الرسالة: ربما وصلت إلى العميل وربما لا.</translation>
    </message>
    <message>
        <source>The message never reached WhatsApp (no connection); it is tried again.</source>
        <translation>لم تصل الرسالة إلى واتساب أبدًا (لا يوجد اتصال)؛ تُعاد المحاولة.</translation>
    </message>
    <message>
        <source>WhatsApp accepted it but gave no message id to follow it by.</source>
        <translation>قبلها واتساب لكنه لم يعطِ معرّف رسالة لمتابعتها.</translation>
    </message>
    <message>
        <source>The stored message cannot be sent as it is.</source>
        <translation>لا يمكن إرسال الرسالة المخزنة كما هي.</translation>
    </message>
    <message>
        <source>The data was restored from a backup taken while this message was waiting or going out: it may or may not have reached the customer.</source>
        <translation>استُعيدت البيانات من نسخة احتياطية أُخذت بينما كانت هذه الرسالة تنتظر أو تخرج: ربما وصلت إلى العميل وربما لا.</translation>
    </message>
    <message>
        <source>Cancelled before it went: the customer opted out of marketing.</source>
        <translation>أُلغيت قبل خروجها: ألغى العميل الاشتراك في التسويق.</translation>
    </message>
    <message>
        <source>WhatsApp refused the message.</source>
        <translation>رفض واتساب الرسالة.</translation>
    </message>
    <message>
        <source>{meaning} (code {code})</source>
        <translation>{meaning} (الرمز {code})</translation>
    </message>
</context>
<context>
    <name>placement</name>
    <message>
        <source>answers our message</source>
        <translation>ترد على رسالتنا</translation>
    </message>
    <message>
        <source>part of the conversation</source>
        <translation>جزء من المحادثة</translation>
    </message>
    <message>
        <source>not linked to a message</source>
        <translation>غير مربوطة برسالة</translation>
    </message>
    <message>
        <source>linked to a message by an agent</source>
        <translation>ربطها موظف برسالة</translation>
    </message>
    <message>
        <source>a new topic</source>
        <translation>موضوع جديد</translation>
    </message>
</context>
<context>
    <name>presence</name>
    <message>
        <source>{names} are typing…</source>
        <translation>{names} يكتبون…</translation>
    </message>
    <message>
        <source>{name} is typing…</source>
        <translation>{name} يكتب…</translation>
    </message>
    <message>
        <source>{names} are viewing</source>
        <translation>{names} يشاهدون</translation>
    </message>
    <message>
        <source>{name} is viewing</source>
        <translation>{name} يشاهد</translation>
    </message>
    <message>
        <source>{names} and {last}</source>
        <translation>{names} و{last}</translation>
    </message>
</context>
<context>
    <name>presentation</name>
    <message>
        <source>closed</source>
        <translation>مغلقة</translation>
    </message>
    <message>
        <source>{duration} left</source>
        <translation>متبقٍ {duration}</translation>
    </message>
    <message>
        <source>{size} MB</source>
        <translation>{size} م.ب</translation>
    </message>
    <message>
        <source>{size} KB</source>
        <translation>{size} ك.ب</translation>
    </message>
    <message>
        <source>{hours} h {minutes} m</source>
        <translation>{hours} س {minutes} د</translation>
    </message>
    <message>
        <source>{minutes} m</source>
        <translation>{minutes} د</translation>
    </message>
    <message>
        <source>a customer</source>
        <translation>عميل</translation>
    </message>
    <message>
        <source>d MMM</source>
        <comment>date format</comment>
        <translation>d MMM</translation>
    </message>
    <message>
        <source>{count} s</source>
        <translation>{count} ث</translation>
    </message>
    <message>
        <source>{count} m</source>
        <translation>{count} د</translation>
    </message>
    <message>
        <source>{count} h</source>
        <translation>{count} س</translation>
    </message>
    <message>
        <source>{count} d</source>
        <translation>{count} ي</translation>
    </message>
    <message>
        <source>⊘ Opted out of marketing</source>
        <translation>⊘ ألغى الاشتراك في التسويق</translation>
    </message>
</context>
<context>
    <name>quality</name>
    <message>
        <source>High (green)</source>
        <translation>عالية (أخضر)</translation>
    </message>
    <message>
        <source>Medium (yellow)</source>
        <translation>متوسطة (أصفر)</translation>
    </message>
    <message>
        <source>Low (red)</source>
        <translation>منخفضة (أحمر)</translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation>غير معروفة</translation>
    </message>
    <message>
        <source>not read yet</source>
        <translation>لم يُقرأ بعد</translation>
    </message>
    <message>
        <source>no daily limit</source>
        <translation>بلا حد يومي</translation>
    </message>
    <message>
        <source>{count} customers a day</source>
        <translation>{count} عميل يوميًا</translation>
    </message>
    <message>
        <source>{amount} (set by hand; Meta says {tier})</source>
        <translation>{amount} (مضبوط يدويًا؛ تقول Meta {tier})</translation>
    </message>
    <message>
        <source>nothing yet</source>
        <translation>لا شيء بعد</translation>
    </message>
    <message>
        <source>{amount} (Meta has not said yet)</source>
        <translation>{amount} (لم تحدده Meta بعد)</translation>
    </message>
    <message>
        <source>⚠ Quality rating dropped to {rating}: Meta may lower the messaging limit. Check recent marketing and templates; customers who block or report the number lower it.</source>
        <translation>⚠ انخفض تقييم الجودة إلى {rating}: قد تخفض Meta حد المراسلة. راجع التسويق والقوالب الأخيرة؛ العملاء الذين يحظرون الرقم أو يبلّغون عنه يخفضونه.</translation>
    </message>
</context>
<context>
    <name>snooze</name>
    <message>
        <source>1 hour</source>
        <translation>ساعة واحدة</translation>
    </message>
    <message>
        <source>3 hours</source>
        <translation>3 ساعات</translation>
    </message>
    <message>
        <source>Tomorrow 9:00</source>
        <translation>غدًا الساعة 9:00</translation>
    </message>
    <message>
        <source>Next Monday 9:00</source>
        <translation>الاثنين القادم الساعة 9:00</translation>
    </message>
</context>
<context>
    <name>state</name>
    <message>
        <source>queued</source>
        <translation>في الانتظار</translation>
    </message>
    <message>
        <source>sending</source>
        <translation>قيد الإرسال</translation>
    </message>
    <message>
        <source>accepted</source>
        <translation>مقبولة</translation>
    </message>
    <message>
        <source>sent</source>
        <translation>مُرسلة</translation>
    </message>
    <message>
        <source>delivered</source>
        <translation>مُسلّمة</translation>
    </message>
    <message>
        <source>read</source>
        <translation>مقروءة</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>فشلت</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>مجهولة</translation>
    </message>
    <message>
        <source>held</source>
        <translation>محتجزة</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>ملغاة</translation>
    </message>
</context>
<context>
    <name>status</name>
    <message>
        <source>queued</source>
        <translation>في الانتظار</translation>
    </message>
    <message>
        <source>sending</source>
        <translation>قيد الإرسال</translation>
    </message>
    <message>
        <source>accepted by WhatsApp</source>
        <translation>قبلها واتساب</translation>
    </message>
    <message>
        <source>sent</source>
        <translation>مُرسلة</translation>
    </message>
    <message>
        <source>delivered</source>
        <translation>مُسلّمة</translation>
    </message>
    <message>
        <source>read</source>
        <translation>مقروءة</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>فشلت</translation>
    </message>
    <message>
        <source>unknown: it may or may not have reached the customer</source>
        <translation>مجهولة: ربما وصلت إلى العميل وربما لا</translation>
    </message>
    <message>
        <source>held: the customer&apos;s window is closed</source>
        <translation>محتجزة: نافذة العميل مغلقة</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>ملغاة</translation>
    </message>
    <message>
        <source>Snoozed until {time}</source>
        <translation>مؤجلة حتى {time}</translation>
    </message>
    <message>
        <source>Snoozed</source>
        <translation>مؤجلة</translation>
    </message>
    <message>
        <source>Pending</source>
        <translation>معلّقة</translation>
    </message>
    <message>
        <source>Resolved</source>
        <translation>محلولة</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>مفتوحة</translation>
    </message>
</context>
<context>
    <name>supervisor</name>
    <message>
        <source>Unknown outcome: the send may or may not have reached the customer.</source>
        <translation>نتيجة مجهولة: ربما وصل الإرسال إلى العميل وربما لا.</translation>
    </message>
    <message>
        <source>Stuck in sending: the worker sending it stopped answering.</source>
        <translation>عالقة في الإرسال: توقفت العملية المرسِلة عن الاستجابة.</translation>
    </message>
    <message>
        <source>Held: the customer&apos;s 24-hour window closed before it could be sent.</source>
        <translation>محتجزة: أُغلقت نافذة الـ 24 ساعة للعميل قبل أن يمكن إرسالها.</translation>
    </message>
    <message>
        <source>WhatsApp reported &apos;{status}&apos; at {time} for {wamid}</source>
        <translation>أفاد واتساب بالحالة «{status}» في {time} للرسالة {wamid}</translation>
    </message>
</context>
<context>
    <name>templates</name>
    <message>
        <source>paused by Meta (low quality)</source>
        <translation>أوقفته Meta مؤقتًا (جودة منخفضة)</translation>
    </message>
    <message>
        <source>rejected by Meta</source>
        <translation>رفضته Meta</translation>
    </message>
    <message>
        <source>waiting for Meta&apos;s review</source>
        <translation>بانتظار مراجعة Meta</translation>
    </message>
    <message>
        <source>waiting for Meta&apos;s review of an appeal</source>
        <translation>بانتظار مراجعة Meta لطعن</translation>
    </message>
    <message>
        <source>disabled by Meta</source>
        <translation>عطّلته Meta</translation>
    </message>
    <message>
        <source>being deleted at Meta</source>
        <translation>قيد الحذف لدى Meta</translation>
    </message>
    <message>
        <source>{status} at Meta</source>
        <translation>{status} لدى Meta</translation>
    </message>
    <message>
        <source>marketing, and this customer opted out of marketing</source>
        <translation>تسويقي، وقد ألغى هذا العميل الاشتراك في التسويق</translation>
    </message>
</context>
</TS>
